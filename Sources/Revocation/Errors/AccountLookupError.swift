/// Why a user's state could not be looked up. ``shortDescription`` is a stable label, safe for metric labels; no
/// case carries a token.
public struct AccountLookupError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Hashable, Sendable {
        case credentials
        case unreachable
        case refused
        case invalidResponse
    }

    private let code: Code
    /// What was wrong, for logs (a status, a transport or credentials label).
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// No access token could be had.
    public static let credentials = AccountLookupError(.credentials, "")
    /// Identity Toolkit could not be reached.
    public static let unreachable = AccountLookupError(.unreachable, "")
    /// Identity Toolkit answered with an error status.
    public static let refused = AccountLookupError(.refused, "")
    /// The answer was not an `accounts:lookup` response.
    public static let invalidResponse = AccountLookupError(.invalidResponse, "")

    static func credentials(_ detail: String) -> AccountLookupError { AccountLookupError(.credentials, detail) }
    static func unreachable(_ detail: String) -> AccountLookupError { AccountLookupError(.unreachable, detail) }
    static func refused(_ detail: String) -> AccountLookupError { AccountLookupError(.refused, detail) }
    static func invalidResponse(_ detail: String) -> AccountLookupError { AccountLookupError(.invalidResponse, detail) }

    /// `credentials`, `unreachable`, `refused` or `invalid_response`.
    public var shortDescription: String {
        switch self.code {
        case .credentials: "credentials"
        case .unreachable: "unreachable"
        case .refused: "refused"
        case .invalidResponse: "invalid_response"
        }
    }

    public var description: String {
        self.detail.isEmpty ? "AccountLookupError.\(self.shortDescription)" : "AccountLookupError.\(self.shortDescription): \(self.detail)"
    }

    public static func == (lhs: AccountLookupError, rhs: AccountLookupError) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(self.code) }
}
