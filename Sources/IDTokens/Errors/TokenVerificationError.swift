/// Why an ID token or an App Check token was refused.
///
/// `message` is a client-safe English sentence naming the rule that failed. It never contains the token or
/// any part of it, and never a key id or claim value longer than 64 characters.
public struct TokenVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One value per distinct failure; `rawValue` is a stable snake_case metric label.
    public enum Reason: String, Sendable, CaseIterable {
        case malformed
        case tokenTooLarge = "token_too_large"
        case unsupportedAlgorithm = "unsupported_algorithm"
        case missingKeyID = "missing_key_id"
        case unknownKey = "unknown_key"
        case badSignature = "bad_signature"
        case expired
        case notYetValid = "not_yet_valid"
        case issuedInFuture = "issued_in_future"
        case authTimeInFuture = "auth_time_in_future"
        case wrongAudience = "wrong_audience"
        case wrongIssuer = "wrong_issuer"
        case invalidSubject = "invalid_subject"
        case keysUnavailable = "keys_unavailable"
        /// App Check: the header's `typ` is not `JWT`.
        case wrongType = "wrong_type"
        /// App Check: the app id (`sub`) is not one of the allowed apps.
        case appNotAllowed = "app_not_allowed"
    }

    /// Which rule failed.
    public let reason: Reason
    /// A client-safe sentence naming the rule that failed.
    public let message: String

    /// An error with a reason and a client-safe message; the message must not quote the token.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { message }

    static func malformed(_ message: String) -> TokenVerificationError { .init(.malformed, message) }
}
