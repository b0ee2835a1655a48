/// One HTTP header field, in the order it is sent or was received.
public struct CurlHeader: Sendable, Hashable {
    /// The field name, as written (requests) or as received (responses).
    public var name: String
    /// The field value, without surrounding whitespace.
    public var value: String

    /// A header field `name: value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
