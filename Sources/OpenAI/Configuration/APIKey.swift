/// An OpenAI API key. It prints as `<redacted>` everywhere (`description`, `debugDescription`,
/// `dump`), so it cannot leak into a log line or an error by interpolation; it is deliberately not
/// `Equatable`: nothing compares keys.
public struct APIKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret itself; read only to build the `Authorization` header.
    let secret: String

    /// Wraps `secret` (e.g. the value of `OPENAI_API_KEY`).
    public init(_ secret: String) {
        self.secret = secret
    }

    /// `<redacted>`.
    public var description: String { "<redacted>" }
    /// `<redacted>`.
    public var debugDescription: String { "<redacted>" }
    /// A mirror with no children, so `dump(key)` shows nothing secret.
    public var customMirror: Mirror { Mirror(self, children: [:]) }

    /// `Bearer <key>`.
    var authorizationValue: String { "Bearer \(self.secret)" }
}
