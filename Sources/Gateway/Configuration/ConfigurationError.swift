/// A configuration value that cannot be used. The message names the variable (never its value when secret).
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let variable: String
    public let message: String

    public init(variable: String, message: String) {
        self.variable = variable
        self.message = message
    }

    public var description: String { "\(self.variable) \(self.message)" }
}
