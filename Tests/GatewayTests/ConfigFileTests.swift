import HTTPTypes
import RateLimiting
import Testing

@testable import Gateway
@testable import GatewayConfig

@Suite("Config file: loading")
struct ConfigFileTests {
    /// The example from the issue.
    static let issueExample = """
        env: prod
        listen: {host: 0.0.0.0, port: 8080}
        firebase: {project_id: my-project}
        rate_limits:
          api: {capacity: 100, period_seconds: 60}
        routes:
          - path: /api/              # a prefix when it ends with /
            upstream: http://127.0.0.1:9000/base
            auth: required
            rate_limit: api
        """

    @Test("the issue's example loads: its route table replaces the built-in one")
    func issueExample() throws {
        let configuration = try GatewayConfiguration(yaml: Self.issueExample)
        #expect(configuration.mode == .prod)
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.firebaseProjectID == "my-project")
        #expect(configuration.rateLimits.map(\.name) == RateLimit.defaults.map(\.name) + ["api"])
        #expect(configuration.rateLimits.last == RateLimit(name: "api", capacity: 100, period: 60))
        let upstream = try #require(UpstreamURL("http://127.0.0.1:9000/base"))
        #expect(configuration.routes == [
            RouteConfiguration(path: .prefix("/api/"), target: .upstream(upstream), auth: .required, rateLimit: RouteRateLimit(name: "api"))
        ])
    }

    @Test("an empty file, comments only, or null means the defaults", arguments: ["", "\n", "# nothing here\n", "~\n", "---\n"])
    func emptyFile(_ yaml: String) throws {
        #expect(try GatewayConfiguration(yaml: yaml, environment: ["ENV": "dev"]) == GatewayConfiguration(environment: ["ENV": "dev"]))
    }

    @Test("storygate.example.yaml is valid: the built-in table written out, plus an upstream route")
    func exampleFile() throws {
        let path = GatewayHarness.repositoryRoot + "/storygate.example.yaml"
        let configuration = try GatewayConfiguration.load(configPath: path, environment: [:])
        // The built-in table, with the two image functions consuming App Check tokens.
        let consuming = ["avatar-generation", "scene-illustration"]
        #expect(Array(configuration.routes.dropLast()) == RouteConfiguration.defaults.map { route in
            var route = route
            route.appCheckConsume = consuming.contains(route.name)
            return route
        })
        let api = try #require(configuration.routes.last)
        #expect(api.path == .prefix("/api/"))
        #expect(api.methods == [.get, .post])
        #expect(api.rateLimit == RouteRateLimit(name: "api"))
        #expect(api.maxBodyBytes == 1_048_576)
        var defaults = GatewayConfiguration()
        defaults.firebaseProjectID = "my-project"
        defaults.rateLimits.append(RateLimit(name: "api", capacity: 100, period: 60))
        defaults.routes = configuration.routes
        #expect(configuration == defaults, "every other value in the example is the default")
    }

    @Test("a file limit with a default's name replaces it in place; a new name is added")
    func rateLimitOverride() throws {
        let configuration = try GatewayConfiguration(yaml: """
            rate_limits:
              story-generation: {capacity: 20, period_seconds: 3600, shadow: true}
              uploads: {capacity: 5, period_seconds: 0.5}
            auth_failure_limit: off
            builtin_routes: true
            routes:
              - {path: /uploads/, upstream: 'http://127.0.0.1:9', rate_limit: uploads}
            """, environment: ["ENV": "dev"])
        #expect(configuration.rateLimits[0] == RateLimit(name: "story-generation", capacity: 20, period: 3600, shadow: true))
        #expect(configuration.rateLimits.count == RateLimit.defaults.count + 1)
        #expect(configuration.rateLimits.last == RateLimit(name: "uploads", capacity: 5, period: 0.5))
        #expect(configuration.authFailureLimit == nil)
    }

    @Test("builtin_routes: true keeps the built-in table; a listed route on a built-in path replaces it")
    func builtinRoutesKept() throws {
        let configuration = try GatewayConfiguration(yaml: """
            builtin_routes: true
            routes:
              - {path: /v1/me, builtin: me, auth: optional, name: me-optional}
              - {path: /files/, upstream: 'https://files.internal', methods: [get, head]}
            """, environment: ["ENV": "dev"])
        let builtinPaths = RouteConfiguration.defaults.map(\.path).filter { $0 != .exact("/v1/me") }
        #expect(configuration.routes.map(\.path) == builtinPaths + [.exact("/v1/me"), .prefix("/files/")])
        #expect(configuration.routes.first { $0.path == .exact("/v1/me") }?.auth == .optional)
        #expect(configuration.routes.last?.methods == [.get, .head])
        #expect(configuration.routes.last?.name == "/files/")
    }

    @Test("methods equal to the target's default are stored as the default (nil)")
    func methodsNormalised() throws {
        let configuration = try GatewayConfiguration(yaml: """
            routes:
              - {path: /s, builtin: story-generation, methods: [post]}
              - {path: /h, builtin: healthz, methods: [GET, HEAD]}
              - {path: /u/, upstream: 'http://h:1', methods: [OPTIONS, DELETE, PATCH, PUT, POST, HEAD, GET]}
            """, environment: ["ENV": "dev"])
        #expect(configuration.routes.map(\.methods) == [nil, nil, nil])
    }

    @Test("the server and proxy sections reach ServerLimits and ProxySettings")
    func serverAndProxy() throws {
        let configuration = try GatewayConfiguration(yaml: """
            server: {max_header_bytes: 2048, max_header_count: 50, max_body_bytes: 0, header_timeout_seconds: 2.5,
                     idle_timeout_seconds: 30, max_connections: 100, shutdown_grace_seconds: 0, raw_path: false}
            proxy: {identity_headers: [X-User-Id, X-Tenant], identity_assertion: {header: X-Identity, accept: false, max_age_seconds: 30},
                    connect_timeout_seconds: 1, max_connections_per_upstream: 8, idle_timeout_seconds: 2.5}
            """, environment: ["ENV": "dev"])
        #expect(configuration.server.maxHeaderBytes == 2048)
        #expect(configuration.server.headerTimeoutSeconds == 2.5)
        #expect(configuration.server.maxBodyBytes == 0)
        #expect(configuration.server.shutdownGraceSeconds == 0)
        // Removed: accepted, ignored and reported (the application warns about it at start).
        #expect(configuration.server.removedSettings == ["server.raw_path"])
        #expect(configuration.proxy.identityHeaders == ["X-User-Id", "X-Tenant"])
        #expect(configuration.proxy.assertionHeader == "X-Identity")
        #expect(configuration.proxy.maxConnectionsPerUpstream == 8)
        #expect(configuration.proxy.assertionMaxAgeSeconds == 30)
        #expect(configuration.proxy.acceptAssertions == false)
        #expect(configuration.proxy.idleTimeoutSeconds == 2.5)
        // The defaults: what the proxy had hard-coded before the keys existed.
        let defaults = try GatewayConfiguration(yaml: "env: dev\n")
        #expect(defaults.proxy.assertionMaxAgeSeconds == 60)
        #expect(defaults.proxy.idleTimeoutSeconds == 60)
        #expect(defaults.proxy.acceptAssertions == true)
        #expect(try GatewayConfiguration(yaml: "env: dev\n", environment: ["IDENTITY_ASSERTION_ACCEPT": "false"]).proxy.acceptAssertions == false)
    }

    @Test("the cross-key rules still apply to file values")
    func crossKeyRules() {
        #expect(throws: ConfigurationError(
            variable: "FIREBASE_PROJECT_ID",
            message: "is required when ENV=prod: set it (or firebase.project_id in the config file) to your Firebase project id, or run with ENV=dev for local development"
        )) { try GatewayConfiguration(yaml: "env: prod\n") }
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: "env: dev\nlisten: {host: 0.0.0.0}\n") }
        #expect(throws: Never.self) { try GatewayConfiguration(yaml: "env: dev\nlisten: {host: 0.0.0.0}\ndev: {allow_non_loopback: true}\n") }
    }

    @Test("a missing config file is an error naming it")
    func missingFile() {
        do {
            _ = try GatewayConfiguration.load(configPath: "/nonexistent/storygate.yaml", environment: ["ENV": "dev"])
            Issue.record("a missing file was accepted")
        } catch {
            #expect(error.description == "/nonexistent/storygate.yaml: cannot be read: No such file or directory")
        }
    }
}
