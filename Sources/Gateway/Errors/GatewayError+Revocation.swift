import HTTPTypes
import Revocation

extension GatewayError {
    /// The answer for a verified token whose session the revocation check refuses; nil when it stands.
    static func revocation(_ verdict: RevocationVerdict) -> GatewayError? {
        switch verdict {
        case .allowed:
            return nil
        case .revoked:
            return GatewayError(
                status: .forbidden, code: "TOKEN_REVOKED",
                message: "This session was revoked (the user signed out everywhere or was made to sign in again); sign in again.", reason: "revoked"
            )
        case .disabled:
            return GatewayError(status: .forbidden, code: "USER_DISABLED", message: "This user account is disabled.", reason: "disabled")
        case .deleted:
            return .invalidToken("The token's user no longer exists.", reason: "user_deleted")
        case .unavailable:
            return GatewayError(
                status: .serviceUnavailable, code: "UNAVAILABLE",
                message: "The user's session state cannot be checked right now; try again shortly.", reason: "revocation_unavailable", retryAfter: 5
            )
        }
    }

    /// A missing or wrong admin bearer secret.
    static func adminUnauthenticated() -> GatewayError {
        var error = GatewayError(
            status: .unauthorized, code: "UNAUTHENTICATED", message: "The admin route needs the admin bearer token.", reason: "admin_token"
        )
        error.headers[.wwwAuthenticate] = "Bearer realm=\"\(Self.realm)-admin\""
        return error
    }
}
