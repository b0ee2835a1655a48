import RateLimiting

/// The rules that only the running gateway needs, checked before anything is built: `storygate serve` and
/// `storygate check-config` both call `loadForStart`, and `GatewayApplication.init` calls `validateForStart`, so
/// check-config fails exactly when serve would refuse to start.
extension GatewayConfiguration {
    /// What `serve` starts with: `load`, then in dev mode the dev certificate set located (without it dev mode
    /// would run but never become ready), then `validateForStart()`. No listener, no network I/O.
    ///
    /// - Throws: every problem found (in `ConfigurationError.more` after the first).
    public static func loadForStart(
        configPath: String?, environment: [String: String], overrides: CommandLineOverrides = .init()
    ) throws(ConfigurationError) -> GatewayConfiguration {
        var problems = ConfigurationProblems()
        var configuration = Self.load(configPath: configPath, environment: environment, overrides: overrides, problems: &problems)
        guard problems.isEmpty else {
            // The start rule that reads only the mode and the key is reported beside the others (prod without
            // FIREBASE_PROJECT_ID nor OPENAI_API_KEY names both).
            if configuration.mode == .prod, configuration.openAIAPIKey == nil, !problems.mention(["ENV", "env", "OPENAI_API_KEY", "OPENAI_API_KEY_FILE", "openai"]) {
                problems.record(Self.openAIKeyRequired)
            }
            try problems.throwIfAny()
            return configuration
        }
        if configuration.mode == .dev {
            problems.check { configuration.devCertsDirectory = try DevCertificates.locate(configured: configuration.devCertsDirectory) }
        }
        problems.check { try configuration.validateForStart() }
        try problems.throwIfAny()
        return configuration
    }

    static let openAIKeyRequired = ConfigurationError(
        variable: "OPENAI_API_KEY",
        message: "is required when ENV=prod: the built-in AI functions call OpenAI (set it, or OPENAI_API_KEY_FILE to a file holding it)"
    )

    /// The rules a configuration may break and still load (a prod configuration without an OpenAI key is valid to
    /// print and to test, but not to run), over the configured routes.
    ///
    /// - Throws: every problem found.
    public func validateForStart() throws(ConfigurationError) {
        try self.validateForStart(extraRoutePolicies: [])
    }

    /// `validateForStart()` over the configured routes and routes added in code (their name, limit and auth policy).
    ///
    /// - Throws: every problem found.
    package func validateForStart(
        extraRoutePolicies: [(name: String, rateLimit: RouteRateLimit?, auth: RouteConfiguration.AuthPolicy)]
    ) throws(ConfigurationError) {
        var problems = ConfigurationProblems()
        if self.mode == .prod, self.openAIAPIKey == nil { problems.record(Self.openAIKeyRequired) }
        problems.check { try self.validateRevocationForStart() }
        let limits = self.rateLimits.map(\.name)
        let routes = self.routes.map { ($0.name, $0.rateLimit, $0.auth) } + extraRoutePolicies
        for (name, rule, auth) in routes {
            guard let rule else { continue }
            guard limits.contains(rule.name) else {
                problems.record(
                    ConfigurationError(
                        variable: "routes",
                        message: "route \(name) names an unknown rate limit '\(rule.name)'\(Suggestion.phrase(rule.name, among: limits)); configured: \(limits.joined(separator: ", "))"
                    )
                )
                continue
            }
            if auth != .required {
                problems.record(ConfigurationError(variable: "routes", message: "route \(name) has a per-user rate limit, so it needs auth: required"))
            }
        }
        try problems.throwIfAny()
    }
}
