import HTTPTypes
import HummingbirdCore
import RateLimiting
import Testing

@testable import Gateway
@testable import GatewayConfig

/// One run reports every configuration problem; a limit no route uses is one; `loadForStart` refuses exactly what
/// `serve` refuses.
@Suite("Configuration: every problem in one run, unused limits, start-up checks")
struct ConfigurationReportTests {
    @Test("two mistakes in a file are both reported, each with its line and key, one a line")
    func everyFileProblem() throws {
        let yaml = "lgo_level: debug\nlisten:\n  port: eighty\nrate_limits:\n  api: {capacity: 0, period_seconds: 60}\n"
        let error = try #require(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: yaml, environment: ["ENV": "dev"]) }
        #expect(error.all.map(\.line) == [1, 3, 5], "\(error)")
        #expect(error.all.map(\.variable) == ["lgo_level", "listen.port", "rate_limits.api.capacity"])
        let lines = error.description.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("storygate.yaml:1: lgo_level: unknown key (did you mean 'log_level'?)"))
        #expect(lines[1].hasPrefix("storygate.yaml:3: listen.port: "))
    }

    @Test("the file's and the environment's problems come together, each naming where it is")
    func fileAndEnvironment() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try GatewayConfiguration(yaml: "access_log: maybe\n", environment: ["ENV": "dev", "PORT": "x", "REDIS_POOL_SIZE": "0"])
        }
        #expect(error.all.map(\.variable) == ["access_log", "PORT", "REDIS_POOL_SIZE"], "\(error)")
        #expect(error.all[0].file == "storygate.yaml")
        #expect(error.all[1].file == nil)
        #expect(error.all[1].description.hasPrefix("PORT must be a whole number from 0 to 65535"))
    }

    @Test("every bad route of a table is reported")
    func everyRoute() throws {
        let yaml = "routes:\n  - {path: /a, upsteam: 'http://h:1'}\n  - {path: b, upstream: 'http://h:1'}\n"
        let error = try #require(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: yaml, environment: ["ENV": "dev"]) }
        #expect(error.all.map(\.line) == [2, 3], "\(error)")
    }

    @Test("a limit the file adds and no route uses is an error with a did-you-mean")
    func unusedLimit() throws {
        let yaml = "rate_limits:\n  story-generaton: {capacity: 20, period_seconds: 3600}\n"
        let error = try #require(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: yaml, environment: ["ENV": "dev"]) }
        #expect(error.all.count == 1)
        #expect(error.line == 2)
        #expect(error.description == "storygate.yaml:2: rate_limits.story-generaton: is used by no route; did you mean story-generation?")
        let far = try #require(throws: ConfigurationError.self) {
            try GatewayConfiguration(yaml: "rate_limits:\n  uploads: {capacity: 1, period_seconds: 1}\n", environment: ["ENV": "dev"])
        }
        #expect(far.message.hasPrefix("is used by no route (name it in a route's rate_limit:"), "\(far)")
    }

    @Test("a route naming an undefined limit is an error with a did-you-mean")
    func undefinedLimit() throws {
        let yaml = "routes:\n  - {path: /s, builtin: story-generation, rate_limit: story-generaton}\n"
        let error = try #require(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: yaml, environment: ["ENV": "dev"]) }
        #expect(error.variable == "routes[0].rate_limit")
        #expect(error.message.contains("(did you mean 'story-generation'?)"), "\(error)")
    }

    @Test("the built-in limits may go unused; a built-in limit overridden by the file too")
    func builtinLimitsUnused() throws {
        let configuration = try GatewayConfiguration(yaml: """
            rate_limits:
              audio-synthesis: {capacity: 1, period_seconds: 1}
            routes:
              - {path: /s, builtin: story-generation, rate_limit: story-generation}
            """, environment: ["ENV": "dev"])
        #expect(configuration.rateLimits.count == RateLimit.defaults.count)
        // No file at all: the defaults start.
        _ = try GatewayConfiguration.loadForStart(configPath: nil, environment: ["ENV": "dev", "DEV_CERTS_DIR": GatewayHarness.repositoryRoot + "/certs/dev"])
    }

    @Test("loadForStart refuses the example file in prod without an OpenAI key, as serve does; with one it loads")
    func startChecks() throws {
        let path = GatewayHarness.repositoryRoot + "/storygate.example.yaml"
        #expect(throws: Never.self) { try GatewayConfiguration.load(configPath: path, environment: [:]) }
        let error = try #require(throws: ConfigurationError.self) { try GatewayConfiguration.loadForStart(configPath: path, environment: [:]) }
        #expect(error.variable == "OPENAI_API_KEY")
        #expect(throws: Never.self) { try GatewayConfiguration.loadForStart(configPath: path, environment: ["OPENAI_API_KEY": "sk-test"]) }
    }

    @Test("loadForStart reports a dev certificate folder that is not there")
    func devCertificates() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try GatewayConfiguration.loadForStart(configPath: nil, environment: ["ENV": "dev", "DEV_CERTS_DIR": "/nonexistent/storygate-certs"])
        }
        #expect(error.variable == "DEV_CERTS_DIR")
    }

    @Test("an added route naming an unknown limit, or limited without auth, is refused before anything is built")
    func extraRoutes() throws {
        var configuration = try GatewayConfiguration(environment: ["ENV": "dev"])
        configuration.routes = []
        let unknown = Route(name: "x", path: .exact("/x"), methods: [.get], auth: .required, rateLimit: RouteRateLimit(name: "story-generaton")) { _, _ in
            Response(status: .ok)
        }
        let open = Route(name: "y", path: .exact("/y"), methods: [.get], auth: .none, rateLimit: RouteRateLimit(name: "story-generation")) { _, _ in
            Response(status: .ok)
        }
        let error = try #require(throws: ConfigurationError.self) { try configuration.validateForStart(extraRoutes: [unknown, open]) }
        #expect(error.all.count == 2, "\(error)")
        #expect(error.message.contains("(did you mean 'story-generation'?)"))
        #expect(error.all[1].message.contains("needs auth: required"))
    }
}
