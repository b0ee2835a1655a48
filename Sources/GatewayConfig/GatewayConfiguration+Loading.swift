/// Values given on `storygate serve`'s command line; they win over the config file and the environment.
public struct CommandLineOverrides: Sendable, Equatable {
    /// `--host`
    public var host: String?
    /// `--port`
    public var port: Int?

    public init(host: String? = nil, port: Int? = nil) {
        self.host = host
        self.port = port
    }
}

extension GatewayConfiguration {
    /// What `storygate serve` and `check-config` run: the defaults, then the config file at `configPath` (or at
    /// `STORYGATE_CONFIG` when nil; no file when neither is set), then the environment, then `overrides`; then
    /// the cross-key rules, once.
    ///
    /// - Throws: every problem found (in `ConfigurationError.more` after the first), each naming the file, line
    ///   and key path, or the variable or flag.
    public static func load(
        configPath: String?, environment: [String: String], overrides: CommandLineOverrides = .init()
    ) throws(ConfigurationError) -> GatewayConfiguration {
        var problems = ConfigurationProblems()
        let configuration = Self.load(configPath: configPath, environment: environment, overrides: overrides, problems: &problems)
        try problems.throwIfAny()
        return configuration
    }

    /// `load`, recording its problems in `problems` and returning what could be applied.
    static func load(
        configPath: String?, environment: [String: String], overrides: CommandLineOverrides, problems: inout ConfigurationProblems
    ) -> GatewayConfiguration {
        var configuration = GatewayConfiguration()
        if let path = configPath ?? EnvironmentReader(environment).raw("STORYGATE_CONFIG") {
            let added = EnvironmentReader(environment).addedRateLimits(known: configuration.rateLimits.map(\.name)).map(\.name)
            problems.check { try ConfigFile.read(path: path).apply(to: &configuration, environmentLimits: added) }
        }
        configuration.finish(environment: environment, overrides: overrides, problems: &problems)
        return configuration
    }

    /// The same from config file text (nil: no file): the defaults, then `yaml`, then the environment, then
    /// `overrides`, validated. `fileName` is what error messages call the file. Secret files it names are read.
    public init(
        yaml: String?, fileName: String = "storygate.yaml", environment: [String: String] = [:],
        overrides: CommandLineOverrides = .init()
    ) throws(ConfigurationError) {
        self.init()
        var problems = ConfigurationProblems()
        if let yaml {
            let added = EnvironmentReader(environment).addedRateLimits(known: self.rateLimits.map(\.name)).map(\.name)
            problems.check { try ConfigFile(text: yaml, name: fileName).apply(to: &self, environmentLimits: added) }
        }
        self.finish(environment: environment, overrides: overrides, problems: &problems)
        try problems.throwIfAny()
    }

    /// The environment and the flags over the file, then the cross-key rules, which run only on values that are
    /// each valid (a rule over a value that failed to apply would report a second, misleading problem).
    private mutating func finish(environment: [String: String], overrides: CommandLineOverrides, problems: inout ConfigurationProblems) {
        let added = EnvironmentReader(environment).addedRateLimits(known: self.rateLimits.map(\.name))
        problems.check { try self.apply(environment: environment) }
        problems.check { try self.apply(overrides) }
        if problems.isEmpty {
            self.checkLimitsUsed(added, problems: &problems)
            problems.check { try self.validate() }
        } else {
            // The rules that read only values which did apply still run, so one run names every problem
            // (a prod run without a project id beside a bad REDIS_URL and other bad variables).
            if !problems.mention(["REDIS_URL", "REDIS_CLUSTER", "redis"]) { problems.check { try self.validateRedis() } }
            if !problems.mention(["ENV", "env", "FIREBASE_PROJECT_ID", "firebase"]), self.mode == .prod, self.firebaseProjectID == nil {
                problems.check { try self.validateMode() }
            }
        }
    }

    /// A limit a variable adds that no route uses is most likely a misspelt variable whose intended override never
    /// applies (`RATE_LIMIT_STORY_GENERATON`): an error with the closest limit's variable, as in the file.
    private func checkLimitsUsed(_ added: [(variable: String, name: String)], problems: inout ConfigurationProblems) {
        let used = Set(self.routes.compactMap(\.rateLimit?.name))
        for limit in added where !used.contains(limit.name) {
            let others = self.rateLimits.map(\.name).filter { $0 != limit.name }
            let hint =
                Suggestion.closest(to: limit.name, among: others).map { "; did you mean \(EnvironmentReader.rateLimitVariable($0))?" }
                ?? " (name \(limit.name) in a route's rate_limit:, or unset it)"
            problems.record(ConfigurationError(variable: limit.variable, message: "adds the limit \(limit.name), which no route uses\(hint)"))
        }
    }

    /// Applies the flags; they are checked like the variables they override.
    public mutating func apply(_ overrides: CommandLineOverrides) throws(ConfigurationError) {
        if let host = overrides.host {
            guard Self.isValidHost(host) else { throw ConfigurationError(variable: "--host", message: "must \(Expected.host), not '\(host.prefix(200))'") }
            self.host = host
        }
        if let port = overrides.port {
            guard ConfigurationBounds.port.contains(port) else {
                throw ConfigurationError(variable: "--port", message: "must be from \(ConfigurationBounds.port.lowerBound) to \(ConfigurationBounds.port.upperBound), not \(port)")
            }
            self.port = port
        }
    }
}
