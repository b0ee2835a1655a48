/// The one error type of the RateLimiting module: why a store could not decide.
///
/// Compare with the static members (`error == .timeout`); equality looks at the kind only.
/// `shortDescription` is stable and safe as a metric label; `description` may carry detail for logs.
public struct RateLimitStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: String, Sendable, Hashable {
        case timeout
        case unavailable
        case protocolError = "protocol_error"
        case scriptError = "script_error"
        case shutdown
        case invalidConfiguration = "invalid_configuration"
    }

    private let code: Code
    /// Extra context for logs only, never for responses or metric labels.
    let detail: String?
    /// True when the command is known not to have reached the server, so it is safe to send again.
    let notSent: Bool

    private init(_ code: Code, detail: String? = nil, notSent: Bool = false) {
        self.code = code
        self.detail = detail
        self.notSent = notSent
    }

    /// The store did not answer within its timeout.
    public static let timeout = RateLimitStoreError(.timeout)
    /// The store cannot be reached: no connection, connection refused or lost.
    public static let unavailable = RateLimitStoreError(.unavailable)
    /// The store answered something this client does not understand.
    public static let protocolError = RateLimitStoreError(.protocolError)
    /// The store rejected the command or the script failed (e.g. an ACL or out-of-memory error).
    public static let scriptError = RateLimitStoreError(.scriptError)
    /// The store has been shut down.
    public static let shutdown = RateLimitStoreError(.shutdown)
    /// The store's configuration is invalid (e.g. a malformed Redis URL).
    public static let invalidConfiguration = RateLimitStoreError(.invalidConfiguration)

    /// A copy that carries `detail` for logs.
    func with(detail: String) -> RateLimitStoreError {
        RateLimitStoreError(self.code, detail: detail, notSent: self.notSent)
    }

    /// A copy marked as never sent: safe to retry on another connection.
    func markedNotSent() -> RateLimitStoreError {
        RateLimitStoreError(self.code, detail: self.detail, notSent: true)
    }

    /// A stable, low-cardinality name: `timeout`, `unavailable`, `protocol_error`, `script_error`,
    /// `shutdown` or `invalid_configuration`.
    public var shortDescription: String { self.code.rawValue }

    /// The kind and, when known, detail for logs (not for responses or metric labels).
    public var description: String {
        if let detail { return "RateLimitStoreError.\(self.code.rawValue): \(detail)" }
        return "RateLimitStoreError.\(self.code.rawValue)"
    }

    /// Equal when of the same kind, whatever the detail.
    public static func == (lhs: RateLimitStoreError, rhs: RateLimitStoreError) -> Bool { lhs.code == rhs.code }
    /// Hashes the kind only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
}
