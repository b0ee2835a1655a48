/// A configuration value that cannot be used. The message names the variable or key (never its value when secret).
///
/// From the environment the description reads `PORT must be a whole number…`; from a config file it names the file,
/// the line and the key path: `storygate.yaml:14: routes[2].upstream: 'ftp://x' is not an http(s) URL`.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The environment variable, flag (`--port`) or key path (`routes[2].upstream`); "" for a file-wide error.
    public let variable: String
    public let message: String
    /// The config file, when the value came from one.
    public let file: String?
    /// The line in `file` (1-based), when known.
    public let line: Int?

    public init(variable: String, message: String) {
        self.variable = variable
        self.message = message
        self.file = nil
        self.line = nil
    }

    /// An error in a config file, at `line` (nil: the file as a whole), for `key` (a key path, "" for none).
    public init(file: String, line: Int?, key: String, message: String) {
        self.variable = key
        self.message = message
        self.file = file
        self.line = line
    }

    public var description: String {
        guard let file = self.file else { return "\(self.variable) \(self.message)" }
        let location = self.line.map { "\(file):\($0)" } ?? file
        return self.variable.isEmpty ? "\(location): \(self.message)" : "\(location): \(self.variable): \(self.message)"
    }
}
