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
    /// - Throws: the first problem, naming the file, line and key path, or the variable or flag.
    public static func load(
        configPath: String?, environment: [String: String], overrides: CommandLineOverrides = .init()
    ) throws(ConfigurationError) -> GatewayConfiguration {
        var configuration = GatewayConfiguration()
        if let path = configPath ?? EnvironmentReader(environment).raw("STORYGATE_CONFIG") {
            try ConfigFile.read(path: path).apply(to: &configuration)
        }
        try configuration.finish(environment: environment, overrides: overrides)
        return configuration
    }

    /// The same from config file text (nil: no file): the defaults, then `yaml`, then the environment, then
    /// `overrides`, validated. `fileName` is what error messages call the file. Secret files it names are read.
    public init(
        yaml: String?, fileName: String = "storygate.yaml", environment: [String: String] = [:],
        overrides: CommandLineOverrides = .init()
    ) throws(ConfigurationError) {
        self.init()
        if let yaml { try ConfigFile(text: yaml, name: fileName).apply(to: &self) }
        try self.finish(environment: environment, overrides: overrides)
    }

    private mutating func finish(environment: [String: String], overrides: CommandLineOverrides) throws(ConfigurationError) {
        try self.apply(environment: environment)
        try self.apply(overrides)
        try self.validate()
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
