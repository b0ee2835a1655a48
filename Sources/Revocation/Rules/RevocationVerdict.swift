/// The answer about one verified token's session.
public enum RevocationVerdict: Sendable, Equatable {
    /// The session stands.
    case allowed
    /// The token was issued before the user's sessions were revoked (`iat` < `validSince`): 403 `TOKEN_REVOKED`.
    case revoked
    /// The account is disabled: 403 `USER_DISABLED`.
    case disabled
    /// The account no longer exists: 401 `UNAUTHENTICATED`.
    case deleted
    /// No fresh state and the failure policy is `closed`: 503 `UNAVAILABLE`.
    case unavailable

    /// A stable label for metrics and logs.
    public var label: String {
        switch self {
        case .allowed: "allowed"
        case .revoked: "revoked"
        case .disabled: "disabled"
        case .deleted: "deleted"
        case .unavailable: "unavailable"
        }
    }
}
