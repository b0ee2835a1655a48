import Logging
import Testing

@testable import Gateway

@Suite("Configuration from the environment")
struct ConfigurationTests {
    @Test("dev mode with embedded defaults needs nothing else")
    func devDefaults() throws {
        let configuration = try GatewayConfiguration(environment: ["ENV": "dev"])
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 8080)
        #expect(configuration.mode == .dev)
        #expect(configuration.clockSkewSeconds == 0)
        #expect(configuration.tokenCacheSize == 10_000)
        #expect(configuration.trustedProjectIDs == ["storygate-dev"])
    }

    @Test("prod is the default and requires FIREBASE_PROJECT_ID")
    func prodRequiresProject() {
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration(environment: [:]) }
        do {
            _ = try GatewayConfiguration(environment: ["ENV": "prod"])
            Issue.record("expected an error")
        } catch {
            #expect(error.variable == "FIREBASE_PROJECT_ID")
        }
    }

    @Test("prod trusts only the configured project; dev adds the dev project")
    func trustedProjects() throws {
        let prod = try GatewayConfiguration(environment: ["FIREBASE_PROJECT_ID": "my-app-123"])
        #expect(prod.trustedProjectIDs == ["my-app-123"])
        #expect(prod.firebaseCertsURL == GatewayConfiguration.googleCertsURL)
        let dev = try GatewayConfiguration(environment: ["ENV": "dev", "FIREBASE_PROJECT_ID": "my-app-123"])
        #expect(dev.trustedProjectIDs == ["my-app-123", "storygate-dev"])
    }

    @Test(
        "a malformed value names its variable",
        arguments: [
            ("PORT", "80a"), ("PORT", "70000"), ("PORT", "-1"), ("ENV", "staging"), ("ENV", "DEV"),
            ("CLOCK_SKEW_SECONDS", "61"), ("CLOCK_SKEW_SECONDS", "1.5"), ("TOKEN_CACHE_SIZE", "lots"),
            ("FIREBASE_CERTS_URL", "http://example.com/certs"), ("FIREBASE_CERTS_URL", "ftp://x/y"),
            ("FIREBASE_PROJECT_ID", "My Project"), ("HOST", "bad host"), ("DEV_ALLOW_NON_LOOPBACK", "maybe"),
            ("LOG_LEVEL", "loud"),
        ]
    )
    func malformed(variable: String, value: String) {
        var environment = ["FIREBASE_PROJECT_ID": "my-app-123"]
        environment[variable] = value
        do {
            _ = try GatewayConfiguration(environment: environment)
            Issue.record("\(variable)=\(value) was accepted")
        } catch {
            #expect(error.variable == variable)
            #expect(error.description.hasPrefix(variable))
        }
    }

    @Test("values are parsed")
    func parsed() throws {
        let configuration = try GatewayConfiguration(environment: [
            "HOST": "0.0.0.0", "PORT": "9090", "FIREBASE_PROJECT_ID": "my-app-123", "CLOCK_SKEW_SECONDS": "60",
            "TOKEN_CACHE_SIZE": "0", "FIREBASE_CERTS_URL": "http://127.0.0.1:9999/certs", "LOG_LEVEL": "debug",
        ])
        #expect(configuration.host == "0.0.0.0")
        #expect(configuration.port == 9090)
        #expect(configuration.clockSkewSeconds == 60)
        #expect(configuration.tokenCacheSize == 0)
        #expect(configuration.firebaseCertsURL == "http://127.0.0.1:9999/certs")
        #expect(configuration.logLevel == .debug)
    }

    @Test("dev mode refuses a non-loopback address unless told otherwise")
    func devLoopbackOnly() throws {
        do {
            _ = try GatewayConfiguration(environment: ["ENV": "dev", "HOST": "0.0.0.0"])
            Issue.record("dev mode bound to 0.0.0.0")
        } catch {
            #expect(error.variable == "HOST")
        }
        let allowed = try GatewayConfiguration(environment: ["ENV": "dev", "HOST": "0.0.0.0", "DEV_ALLOW_NON_LOOPBACK": "true"])
        #expect(allowed.host == "0.0.0.0")
        #expect(try GatewayConfiguration(environment: ["ENV": "dev", "HOST": "::1"]).host == "::1")
    }

    @Test("a malformed REDIS_URL is refused without echoing it (it may carry a password)")
    func redisURLNotEchoed() {
        do {
            _ = try GatewayConfiguration(environment: ["ENV": "dev", "REDIS_URL": "rediss://:hunter2@cache:6379"])
            Issue.record("accepted a non-redis:// URL")
        } catch {
            #expect(error.variable == "REDIS_URL")
            #expect(!error.description.contains("hunter2"))
        }
    }

    @Test("a key file's trailing newline is dropped (a lone \\n, not only \\r\\n)")
    func keyFileNewline() throws {
        try withTemporaryFile("sk-test\n") { path in
            let configuration = try GatewayConfiguration(environment: ["ENV": "dev", "OPENAI_API_KEY_FILE": path])
            #expect(configuration.openAIAPIKey == Secret("sk-test"))
        }
        #expect(try GatewayConfiguration(environment: ["ENV": "dev", "PORT": "9000\n"]).port == 9000)
    }
}
