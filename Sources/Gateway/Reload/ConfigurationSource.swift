public import GatewayConfig

/// Where a running gateway's configuration comes from, so that a reload reads it again: the config file (read anew,
/// with the secret files it and the `*_FILE` variables name), the environment and the flags the process started with.
public struct ConfigurationSource: Sendable {
    public var configPath: String?
    public var environment: [String: String]
    public var overrides: CommandLineOverrides

    public init(configPath: String?, environment: [String: String], overrides: CommandLineOverrides = .init()) {
        self.configPath = configPath
        self.environment = environment
        self.overrides = overrides
    }

    /// What `storygate serve` loads at start (and `check-config` checks).
    public func load() throws(ConfigurationError) -> GatewayConfiguration {
        try GatewayConfiguration.loadForStart(configPath: self.configPath, environment: self.environment, overrides: self.overrides)
    }
}
