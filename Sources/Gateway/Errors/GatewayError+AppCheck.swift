import HTTPTypes
import IDTokens

extension GatewayError {
    /// Enforced App Check and no `X-Firebase-AppCheck` header.
    static func appCheckMissing() -> GatewayError {
        GatewayError(
            status: .unauthorized, code: "APP_CHECK_FAILED",
            message: "Missing App Check token: send X-Firebase-AppCheck: <App Check token>.", reason: "app_check_missing"
        )
    }

    /// Enforced App Check and a token that broke a rule (named in the message; the token never is); 503 while
    /// App Check's keys were never loaded.
    static func appCheckFailed(_ failure: TokenVerificationError) -> GatewayError {
        if failure.reason == .keysUnavailable {
            return GatewayError(
                status: .serviceUnavailable, code: "UNAVAILABLE", message: "App Check signing keys are not available yet; try again shortly.",
                reason: "app_check_keys_unavailable", retryAfter: 5
            )
        }
        return GatewayError(status: .unauthorized, code: "APP_CHECK_FAILED", message: failure.message, reason: "app_check_" + failure.reason.rawValue)
    }

    /// A limited-use App Check token that Google reports as already consumed.
    static func appCheckReplayed() -> GatewayError {
        GatewayError(
            status: .unauthorized, code: "APP_CHECK_REPLAYED",
            message: "This App Check token was already used; limited-use tokens are good for one request.", reason: "app_check_replayed"
        )
    }

    /// Enforced App Check on a consuming route, and Google's App Check API could not say whether the token was used.
    static func appCheckConsumeUnavailable() -> GatewayError {
        GatewayError(
            status: .serviceUnavailable, code: "UNAVAILABLE", message: "The App Check token could not be checked for replay; try again shortly.",
            reason: "app_check_consume_unavailable", retryAfter: 5
        )
    }
}
