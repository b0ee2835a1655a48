/// A configuration value that cannot be used. The message names the variable or key (never its value when secret).
///
/// From the environment the description reads `PORT must be a whole number…`; from a config file it names the file,
/// the line and the key path: `storygate.yaml:14: routes[2].upstream: 'ftp://x' is not an http(s) URL`.
/// One run reports every problem it finds: the first is this error's own, the others are in `more`, each
/// described on its own line.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The environment variable, flag (`--port`) or key path (`routes[2].upstream`); "" for a file-wide error.
    public let variable: String
    public let message: String
    /// The config file, when the value came from one.
    public let file: String?
    /// The line in `file` (1-based), when known.
    public let line: Int?
    /// The other problems found in the same run, in the order found.
    public internal(set) var more: [ConfigurationError] = []

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

    /// Each problem on its own line.
    public var description: String {
        ([self.ownDescription] + self.more.map(\.ownDescription)).joined(separator: "\n")
    }

    /// Every problem of the run, this one first, each without `more`.
    public var all: [ConfigurationError] {
        var first = self
        first.more = []
        return [first] + self.more
    }

    /// One error carrying `errors` (nil when there are none).
    static func combined(_ errors: [ConfigurationError]) -> ConfigurationError? {
        let flat = errors.flatMap(\.all)
        guard var first = flat.first else { return nil }
        first.more = Array(flat.dropFirst())
        return first
    }

    private var ownDescription: String {
        guard let file = self.file else { return "\(self.variable) \(self.message)" }
        let location = self.line.map { "\(file):\($0)" } ?? file
        return self.variable.isEmpty ? "\(location): \(self.message)" : "\(location): \(self.variable): \(self.message)"
    }
}

/// Gathers the configuration errors of one run, so all of them are reported at once rather than the first.
struct ConfigurationProblems {
    private(set) var errors: [ConfigurationError] = []

    var isEmpty: Bool { self.errors.isEmpty }

    /// Runs `body`, recording the error it throws.
    mutating func check<E: Error>(_ body: () throws(E) -> Void) {
        do {
            try body()
        } catch {
            self.record(error)
        }
    }

    /// The value `body` returns, or nil after recording the error it throws.
    mutating func value<T, E: Error>(_ body: () throws(E) -> T) -> T? {
        do {
            return try body()
        } catch {
            self.record(error)
            return nil
        }
    }

    mutating func record(_ error: any Error) {
        if let error = error as? ConfigurationError {
            self.errors.append(contentsOf: error.all)
        } else {
            self.errors.append(ConfigurationError(variable: "configuration", message: "is unusable: \(error)"))
        }
    }

    /// Whether a recorded error is about one of `names`: a variable, or a file key path starting with one.
    func mention(_ names: [String]) -> Bool {
        self.errors.contains { error in names.contains { error.variable == $0 || error.variable.hasPrefix($0 + ".") } }
    }

    /// Throws every recorded error as one.
    func throwIfAny() throws(ConfigurationError) {
        if let error = ConfigurationError.combined(self.errors) { throw error }
    }
}
