import Logging
import Testing

@testable import Gateway
@testable import GatewayConfig

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
            // Plain HTTP only to loopback, and a URL's user info is not its host (RFC 3986 §3.2.1).
            ("FIREBASE_CERTS_URL", "http://127.0.0.1@example.com/certs"), ("FIREBASE_CERTS_URL", "http://127.attacker.example/certs"),
            ("FIREBASE_CERTS_URL", "http://[::1]@example.com/certs"), ("FIREBASE_CERTS_URL", "http://127.0.0.1:80@example.com/certs"),
            ("FIREBASE_CERTS_URL", "http://127.0.0.1.nip.io/certs"), ("FIREBASE_CERTS_URL", "https://user:secret@example.com/certs"),
            ("OPENAI_BASE_URL", "http://127.0.0.1@example.com/v1"), ("OPENAI_BASE_URL", "http://localhost.example.com/v1"),
            // What the Redis store would refuse at start, refused here (so check-config says so too).
            ("REDIS_URL", "redis://cache:99999"), ("REDIS_URL", "redis://cache:6379/abc"), ("REDIS_URL", "redis://[::1:6379"),
            ("REDIS_URL", "redis://cache:6379?db=1"),
            // The config file's bounds; a failed-authentication limit that could not let one attempt through.
            ("RATE_LIMIT_STORY_GENERATION", "0.0001/10"), ("AUTH_FAILURE_LIMIT", "0.5/60"),
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

    @Test("a route whose cost is over its limit's capacity could never pass: refused, from the file or the environment")
    func costOverCapacity() throws {
        let route = "routes:\n  - {path: /api/, upstream: 'http://127.0.0.1:9', rate_limit: api, cost: 3}\n"
        let limit = { (capacity: String) in "env: dev\nrate_limits:\n  api: {capacity: \(capacity), period_seconds: 10}\n" + route }
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: limit("2.5")) }
        _ = try GatewayConfiguration(yaml: limit("3"))
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: limit("3"), environment: ["RATE_LIMIT_API": "2/10"]) }
        // The default cost is 1.
        let cheap = "env: dev\nrate_limits:\n  api: {capacity: 0.5, period_seconds: 10}\nroutes:\n  - {path: /api/, upstream: 'http://127.0.0.1:9', rate_limit: api}\n"
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: cheap) }
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

    @Test("plain HTTP to a loopback server is allowed", arguments: [
        "http://127.0.0.1:9999/certs", "http://127.1.2.3/certs", "http://localhost:8080/certs", "http://[::1]:9/certs",
        "http://localhost?x=1", "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com",
    ])
    func loopbackHTTP(url: String) throws {
        let configuration = try GatewayConfiguration(environment: ["FIREBASE_PROJECT_ID": "my-app-123", "FIREBASE_CERTS_URL": url])
        #expect(configuration.firebaseCertsURL == url)
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
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration(environment: ["ENV": "dev", "HOST": "127.0.0.1.nip.io"]) }
    }

    @Test("a refused certificate or OpenAI URL with user info is not echoed (it may carry a password)", arguments: ["FIREBASE_CERTS_URL", "OPENAI_BASE_URL"])
    func urlWithUserInfoNotEchoed(variable: String) {
        do {
            _ = try GatewayConfiguration(environment: ["FIREBASE_PROJECT_ID": "my-app-123", variable: "http://user:hunter2@example.com/x"])
            Issue.record("accepted a URL with user info")
        } catch {
            #expect(error.variable == variable)
            #expect(!error.description.contains("hunter2"))
        }
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
            #expect(configuration.openAIAPIKey == Secret("sk-test", path: path))
        }
        #expect(try GatewayConfiguration(environment: ["ENV": "dev", "PORT": "9000\n"]).port == 9000)
    }
}
