/// Why an identity assertion was refused. `message` is client-safe: it never quotes the assertion.
public struct IdentityAssertionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One value per distinct failure; `rawValue` is a stable snake_case metric label.
    public enum Reason: String, Sendable, CaseIterable {
        /// Not `v1.<ts>.<uid>.<rid>.<mac>` with strict fields, or too long.
        case malformed
        /// A version other than `v1`.
        case unsupportedVersion = "unsupported_version"
        /// The MAC does not match (another key, or altered fields).
        case badSignature = "bad_signature"
        /// Issued longer ago than the accepted age.
        case expired
        /// Issued further in the future than the accepted clock skew.
        case issuedInFuture = "issued_in_future"
    }

    public let reason: Reason
    public let message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { self.message }
}
