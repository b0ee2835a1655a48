import Testing

@testable import Gateway
@testable import GatewayConfig

@Suite("App Check configuration: variables, file keys, route overrides, rules")
struct AppCheckConfigurationTests {
    static let prod = ["FIREBASE_PROJECT_ID": "my-app", "OPENAI_API_KEY": "sk-test"]

    @Test("off by default, with Google's URLs")
    func defaults() throws {
        let configuration = try GatewayConfiguration(environment: Self.prod)
        #expect(configuration.appCheck == AppCheckSettings())
        #expect(configuration.appCheck.mode == .off)
        #expect(configuration.appCheck.jwksURL == "https://firebaseappcheck.googleapis.com/v1/jwks")
        #expect(configuration.appCheck.apiURL == "https://firebaseappcheck.googleapis.com")
        #expect(!configuration.appCheckIsOn)
    }

    @Test("the variables set every value")
    func environment() throws {
        let configuration = try GatewayConfiguration(environment: Self.prod.merging([
            "APP_CHECK": "enforce", "FIREBASE_PROJECT_NUMBER": "123456789012", "APP_CHECK_APP_IDS": "1:123:web:aa, 1:123:ios:bb",
            "APP_CHECK_JWKS_URL": "http://127.0.0.1:9000/jwks", "APP_CHECK_API_URL": "http://[::1]:9001",
        ]) { $1 })
        #expect(configuration.appCheck.mode == .enforce)
        #expect(configuration.appCheck.projectNumber == "123456789012")
        #expect(configuration.appCheck.appIDs == ["1:123:web:aa", "1:123:ios:bb"])
        #expect(configuration.appCheck.jwksURL == "http://127.0.0.1:9000/jwks")
        #expect(configuration.appCheck.apiURL == "http://[::1]:9001")
        #expect(configuration.appCheckIsOn)
    }

    @Test("malformed values are refused, naming the variable", arguments: [
        ("APP_CHECK", "on"), ("FIREBASE_PROJECT_NUMBER", "my-app"), ("FIREBASE_PROJECT_NUMBER", "12 34"),
        ("APP_CHECK_APP_IDS", "1:2:web:a b"), ("APP_CHECK_JWKS_URL", "http://example.com/jwks"),
        ("APP_CHECK_API_URL", "ftp://127.0.0.1"), ("APP_CHECK_JWKS_URL", "https://user@example.com/jwks"),
    ])
    func malformed(_ variable: String, _ value: String) {
        var environment = Self.prod.merging(["FIREBASE_PROJECT_NUMBER": "1"]) { $1 }
        environment[variable] = value
        #expect { try GatewayConfiguration(environment: environment) } throws: { error in
            "\(error)".contains(variable)
        }
    }

    @Test("FIREBASE_PROJECT_NUMBER is required in prod when App Check is on anywhere, not in dev")
    func projectNumberRequired() throws {
        #expect { try GatewayConfiguration(environment: Self.prod.merging(["APP_CHECK": "monitor"]) { $1 }) } throws: { error in
            "\(error)".contains("FIREBASE_PROJECT_NUMBER is required when App Check is on")
        }
        #expect(throws: ConfigurationError.self) {
            try GatewayConfiguration(yaml: "routes: [{path: /v1/me, builtin: me, app_check: enforce}]\n", environment: Self.prod)
        }
        let dev = try GatewayConfiguration(environment: ["ENV": "dev", "APP_CHECK": "enforce"])
        #expect(dev.appCheckProjectNumber == AppCheckSettings.devProjectNumber)
    }

    @Test("the file keys under firebase, and the route keys")
    func file() throws {
        let configuration = try GatewayConfiguration(yaml: """
            env: dev
            firebase:
              project_number: '42'
              app_check: {mode: monitor, app_ids: ['1:42:web:aa'], jwks_url: 'http://127.0.0.1:1/jwks', api_url: 'http://127.0.0.1:2'}
            routes:
              - {path: /functions/v1/avatar-generation, builtin: avatar-generation, app_check: enforce, app_check_consume: true}
              - {path: /v1/me, builtin: me, app_check: 'off'}
              - {path: /functions/v1/story-generation, builtin: story-generation}
              - {path: /healthz, builtin: healthz, auth: none}
              - {path: /media/, builtin: media, auth: none, app_check: monitor}
            """)
        #expect(configuration.appCheck.mode == .monitor)
        #expect(configuration.appCheck.projectNumber == "42")
        #expect(configuration.appCheck.appIDs == ["1:42:web:aa"])
        #expect(configuration.routes.map(\.appCheck) == [.enforce, .off, nil, nil, .monitor])
        #expect(configuration.routes.map(\.appCheckConsume) == [true, false, false, false, false])
        // An auth: none route follows the gateway's mode only when it says so itself.
        #expect(configuration.routes.map { configuration.appCheckMode(of: $0) } == [.enforce, .off, .monitor, .off, .monitor])
        let printed = try configuration.effectiveYAML()
        #expect(try GatewayConfiguration(yaml: printed) == configuration, "\(printed)")
        #expect(printed.contains("app_check_consume: true"))
    }

    @Test("app_check_consume alone does not turn App Check on; bad values are refused with the key")
    func routeRules() throws {
        let inert = try GatewayConfiguration(yaml: "routes: [{path: /v1/me, builtin: me, app_check_consume: true}]\n", environment: Self.prod)
        #expect(!inert.appCheckIsOn)
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: "env: dev\nroutes: [{path: /v1/me, builtin: me, app_check: strict}]\n") }
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: "env: dev\nfirebase: {app_check: {mode: on}}\n") }
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: "env: dev\nfirebase: {app_check: {unknown: 1}}\n") }
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: "env: dev\nfirebase: {project_number: abc}\n") }
    }
}
