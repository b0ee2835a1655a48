import RateLimiting
import Testing

@testable import Gateway
@testable import GatewayConfig

@Suite("Config precedence: defaults, then the file, then the environment, then the flags")
struct ConfigPrecedenceTests {
    static let file = """
        env: dev
        listen: {host: 127.0.0.2, port: 9000}
        firebase: {project_id: file-project, clock_skew_seconds: 5}
        rate_limits:
          api: {capacity: 100, period_seconds: 60}
        routes:
          - {path: /api/, upstream: 'http://127.0.0.1:9', rate_limit: api}
        trusted_proxies: [10.0.0.0/8]
        redis: {url: 'redis://cache:6379', pool_size: 8}
        server: {max_body_bytes: 1000, max_connections: 10, shutdown_grace_seconds: 5, direct_path: false, raw_path: false}
        access_log: false
        """

    @Test("a variable overrides the file's value; an unset variable keeps it")
    func environmentOverridesFile() throws {
        let fileOnly = try GatewayConfiguration(yaml: Self.file)
        #expect(fileOnly.port == 9000)
        #expect(fileOnly.firebaseProjectID == "file-project")
        #expect(fileOnly.trustedProxies.map(\.description) == ["10.0.0.0/8"])
        #expect(fileOnly.redisURL == "redis://cache:6379")

        let configuration = try GatewayConfiguration(yaml: Self.file, environment: [
            "PORT": "9100", "FIREBASE_PROJECT_ID": "env-project", "RATE_LIMIT_API": "5/1 shadow", "TRUSTED_PROXIES": "192.168.0.0/16",
            "MAX_BODY_BYTES": "2000", "MAX_CONNECTIONS": "20", "SHUTDOWN_GRACE_SECONDS": "0.5", "ACCESS_LOG": "true",
            "DIRECT_PATH": "true", "RAW_PATH": "true",
            "REDIS_URL": "",  // empty counts as unset
        ])
        #expect(configuration.port == 9100)
        #expect(configuration.host == "127.0.0.2", "not set in the environment: the file's value")
        #expect(configuration.firebaseProjectID == "env-project")
        #expect(configuration.clockSkewSeconds == 5)
        #expect(configuration.rateLimits.last == RateLimit(name: "api", capacity: 5, period: 1, shadow: true))
        #expect(configuration.trustedProxies.map(\.description) == ["192.168.0.0/16"])
        #expect(configuration.redisURL == "redis://cache:6379")
        #expect(configuration.redisPoolSize == 8)
        #expect(configuration.server.maxBodyBytes == 2000)
        #expect(configuration.server.maxConnections == 20)
        #expect(configuration.server.shutdownGraceSeconds == 0.5)
        #expect(configuration.accessLog == true)
        // Removed settings, from the file and the environment: accepted and ignored, each reported once.
        #expect(fileOnly.server.removedSettings == ["server.direct_path", "server.raw_path"])
        #expect(configuration.server.removedSettings == ["server.direct_path", "server.raw_path", "DIRECT_PATH", "RAW_PATH"])
    }

    @Test("the environment can fill in what the file leaves out, and the rules run on the result")
    func environmentCompletesFile() throws {
        let configuration = try GatewayConfiguration(yaml: "env: prod\n", environment: ["FIREBASE_PROJECT_ID": "env-project"])
        #expect(configuration.firebaseProjectID == "env-project")
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: "env: dev\nlisten: {host: 0.0.0.0}\n", environment: ["ENV": "prod"]) }
    }

    @Test("flags override the file and the environment, through the function serve calls")
    func flagsOverrideBoth() throws {
        try withTemporaryFile(Self.file) { path in
            let configuration = try GatewayConfiguration.load(
                configPath: path, environment: ["HOST": "127.0.0.3", "PORT": "9100"],
                overrides: CommandLineOverrides(host: "::1", port: 0)
            )
            #expect(configuration.host == "::1")
            #expect(configuration.port == 0)
            #expect(configuration.firebaseProjectID == "file-project")
        }
    }

    @Test("a bad flag is an error naming it")
    func badFlags() {
        #expect(throws: ConfigurationError(variable: "--port", message: "must be from 0 to 65535, not 70000")) {
            try GatewayConfiguration.load(configPath: nil, environment: ["ENV": "dev"], overrides: CommandLineOverrides(port: 70000))
        }
        #expect(throws: ConfigurationError.self) {
            try GatewayConfiguration.load(configPath: nil, environment: ["ENV": "dev"], overrides: CommandLineOverrides(host: "bad host"))
        }
    }

    @Test("STORYGATE_CONFIG names the file when --config is not given; --config wins over it")
    func configPathFromEnvironment() throws {
        try withTemporaryFile(Self.file) { path in
            let fromVariable = try GatewayConfiguration.load(configPath: nil, environment: ["STORYGATE_CONFIG": path])
            #expect(fromVariable.port == 9000)
            try withTemporaryFile("env: dev\nlisten: {port: 9200}\n") { other in
                let fromFlag = try GatewayConfiguration.load(configPath: other, environment: ["STORYGATE_CONFIG": path])
                #expect(fromFlag.port == 9200)
            }
        }
    }

    @Test("the file's secret files are read; OPENAI_API_KEY wins over openai.api_key_file")
    func secretFiles() throws {
        try withTemporaryFile("sk-from-file\n") { keyFile in
            try withTemporaryFile(String(repeating: "k", count: 32)) { assertionFile in
                let yaml = "env: dev\nopenai: {api_key_file: '\(keyFile)'}\nproxy: {identity_assertion: {secret_file: '\(assertionFile)'}}\n"
                let fromFile = try GatewayConfiguration(yaml: yaml)
                #expect(fromFile.openAIAPIKey == Secret("sk-from-file"), "the trailing newline is dropped")
                #expect(fromFile.proxy.assertionSecret == Secret(String(repeating: "k", count: 32)))
                let fromEnvironment = try GatewayConfiguration(yaml: yaml, environment: ["OPENAI_API_KEY": "sk-from-env"])
                #expect(fromEnvironment.openAIAPIKey == Secret("sk-from-env"))
                let viaVariable = try GatewayConfiguration(yaml: "env: dev\n", environment: ["IDENTITY_ASSERTION_SECRET_FILE": assertionFile])
                #expect(viaVariable.proxy.assertionSecret == Secret(String(repeating: "k", count: 32)))
            }
        }
    }

    @Test("a short identity-assertion key is refused, naming the key or variable and never the content")
    func shortAssertionSecret() throws {
        try withTemporaryFile("short-secret-value") { path in
            do throws(ConfigurationError) {
                _ = try GatewayConfiguration(yaml: "env: dev\nproxy:\n  identity_assertion:\n    secret_file: '\(path)'\n")
                Issue.record("a short key was accepted")
            } catch {
                #expect(error.line == 4)
                #expect(error.variable == "proxy.identity_assertion.secret_file")
                #expect(error.message.contains("fewer than 32 bytes"))
                #expect(!error.description.contains("short-secret-value"))
            }
            #expect(throws: ConfigurationError.self) {
                try GatewayConfiguration(environment: ["ENV": "dev", "IDENTITY_ASSERTION_SECRET_FILE": path])
            }
        }
    }

    @Test("proxy settings are checked at load whatever set them: header names, the assertion header, the key's length, durations")
    func proxySettingsValidated() throws {
        var configuration = try GatewayConfiguration(yaml: "env: dev\n")
        #expect(throws: Never.self) { try configuration.validate() }
        let broken: [(String, (inout ProxySettings) -> Void)] = [
            ("proxy.identity_headers", { $0.identityHeaders = ["X-User-Id", "Bad Header"] }),
            ("proxy.identity_assertion.header", { $0.assertionHeader = "X Identity" }),
            ("proxy.identity_assertion.header", { $0.assertionHeader = "X-Request-ID" }),
            ("proxy.identity_assertion.secret_file", { $0.assertionSecret = Secret(String(repeating: "k", count: 31)) }),
            ("proxy.identity_assertion.max_age_seconds", { $0.assertionMaxAgeSeconds = 0 }),
            ("proxy.idle_timeout_seconds", { $0.idleTimeoutSeconds = 0 }),
            ("proxy.connect_timeout_seconds", { $0.connectTimeoutSeconds = 601 }),
            ("proxy.max_connections_per_upstream", { $0.maxConnectionsPerUpstream = 0 }),
        ]
        for (key, breakIt) in broken {
            var settings = ProxySettings()
            breakIt(&settings)
            configuration.proxy = settings
            do throws(ConfigurationError) {
                try configuration.validate()
                Issue.record("\(key): accepted")
            } catch {
                #expect(error.variable == key)
                #expect(!error.description.contains(String(repeating: "k", count: 31)))
            }
        }
        configuration.proxy = ProxySettings()
        configuration.proxy.assertionSecret = Secret(String(repeating: "k", count: 32))
        #expect(throws: Never.self) { try configuration.validate() }
    }
}
