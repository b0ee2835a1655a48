/// A secret configuration value (an API key): never printed, logged or compared outside its owner.
public struct Secret: Sendable, Equatable, CustomStringConvertible {
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    public var description: String { "<redacted>" }
}
