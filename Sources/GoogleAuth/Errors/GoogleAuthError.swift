/// Why a service-account file could not be read or an access token could not be had.
///
/// Compare with `==` (the kind only); ``shortDescription`` is a stable snake_case label, safe for metric labels.
/// No case ever carries the private key, an assertion or an access token.
public struct GoogleAuthError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case credentialsUnreadable
        case credentialsInvalid
        case endpointUnreachable
        case endpointRefused
        case invalidTokenResponse
        case backingOff
    }

    private let code: Code
    /// What was wrong, for logs: a field name, a status code, the transport's label. Never a secret.
    public let detail: String

    private init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// The credentials file could not be read.
    public static let credentialsUnreadable = GoogleAuthError(.credentialsUnreadable)
    /// The credentials file is not a usable service-account JSON file.
    public static let credentialsInvalid = GoogleAuthError(.credentialsInvalid)
    /// The token endpoint could not be reached (connection, timeout).
    public static let endpointUnreachable = GoogleAuthError(.endpointUnreachable)
    /// The token endpoint answered with an error status.
    public static let endpointRefused = GoogleAuthError(.endpointRefused)
    /// The token endpoint's answer was not a bearer token with a lifetime.
    public static let invalidTokenResponse = GoogleAuthError(.invalidTokenResponse)
    /// A recent attempt failed and the next one is not due yet.
    public static let backingOff = GoogleAuthError(.backingOff)

    static func credentialsUnreadable(_ detail: String) -> GoogleAuthError { GoogleAuthError(.credentialsUnreadable, detail) }
    static func credentialsInvalid(_ detail: String) -> GoogleAuthError { GoogleAuthError(.credentialsInvalid, detail) }
    static func endpointUnreachable(_ detail: String) -> GoogleAuthError { GoogleAuthError(.endpointUnreachable, detail) }
    static func endpointRefused(_ detail: String) -> GoogleAuthError { GoogleAuthError(.endpointRefused, detail) }
    static func invalidTokenResponse(_ detail: String) -> GoogleAuthError { GoogleAuthError(.invalidTokenResponse, detail) }
    static func backingOff(_ detail: String) -> GoogleAuthError { GoogleAuthError(.backingOff, detail) }

    /// `credentials_unreadable`, `credentials_invalid`, `endpoint_unreachable`, `endpoint_refused`,
    /// `invalid_token_response` or `backing_off`.
    public var shortDescription: String {
        switch self.code {
        case .credentialsUnreadable: "credentials_unreadable"
        case .credentialsInvalid: "credentials_invalid"
        case .endpointUnreachable: "endpoint_unreachable"
        case .endpointRefused: "endpoint_refused"
        case .invalidTokenResponse: "invalid_token_response"
        case .backingOff: "backing_off"
        }
    }

    public var description: String {
        self.detail.isEmpty ? "GoogleAuthError.\(self.shortDescription)" : "GoogleAuthError.\(self.shortDescription): \(self.detail)"
    }

    public static func == (lhs: GoogleAuthError, rhs: GoogleAuthError) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
}
