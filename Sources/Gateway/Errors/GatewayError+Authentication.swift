import HTTPTypes
import IDTokens

extension GatewayError {
    static let realm = "storygate"

    /// No credentials at all: a challenge without an error code (RFC 6750 §3.1).
    static func missingCredentials(devMode: Bool) -> GatewayError {
        var error = GatewayError(
            status: .unauthorized, code: "UNAUTHENTICATED",
            message: devMode
                ? "Missing credentials: send Authorization: Bearer <Firebase ID token> (or X-User-Id in dev mode)."
                : "Missing credentials: send Authorization: Bearer <Firebase ID token>.",
            reason: "missing"
        )
        error.headers[.wwwAuthenticate] = "Bearer realm=\"\(Self.realm)\""
        return error
    }

    /// Credentials in a scheme other than `Bearer` (`Basic`, …): a 401 with the same challenge as none at all
    /// (RFC 6750 §3.1), but a message that says the scheme, not the credentials, is what is missing.
    static func unsupportedScheme(devMode: Bool) -> GatewayError {
        var error = GatewayError(
            status: .unauthorized, code: "UNAUTHENTICATED",
            message: devMode
                ? "The Authorization scheme is not accepted: send Authorization: Bearer <Firebase ID token> (or X-User-Id in dev mode, without Authorization)."
                : "The Authorization scheme is not accepted: send Authorization: Bearer <Firebase ID token>.",
            reason: "unsupported_scheme"
        )
        error.headers[.wwwAuthenticate] = "Bearer realm=\"\(Self.realm)\""
        return error
    }

    /// The request carried more than one Authorization header (RFC 6750 §2: one method, once).
    static func multipleAuthorizationHeaders() -> GatewayError {
        var error = GatewayError(
            status: .badRequest, code: "INVALID_ARGUMENT",
            message: "Send exactly one Authorization header.", reason: "multiple_credentials"
        )
        error.headers[.wwwAuthenticate] = "Bearer realm=\"\(Self.realm)\", error=\"invalid_request\""
        return error
    }

    /// A token that was presented and rejected: 401 `invalid_token`, or 503 when no keys could be loaded.
    init(_ failure: TokenVerificationError) {
        if failure.reason == .keysUnavailable {
            self.init(
                status: .serviceUnavailable, code: "UNAVAILABLE",
                message: "Token signing keys are not available yet; try again shortly.",
                reason: failure.reason.rawValue, retryAfter: 5
            )
            return
        }
        self = .invalidToken(failure.message, reason: failure.reason.rawValue)
    }

    /// A presented bearer token that is not acceptable: 401 with an `invalid_token` challenge (RFC 6750 §3.1).
    static func invalidToken(_ message: String, reason: String) -> GatewayError {
        var error = GatewayError(status: .unauthorized, code: "UNAUTHENTICATED", message: message, reason: reason)
        error.headers[.wwwAuthenticate] = "Bearer realm=\"\(Self.realm)\", error=\"invalid_token\", error_description=\"\(Self.quotedStringSafe(message))\""
        return error
    }

    /// RFC 6750 §3: error_description is %x20-21 / %x23-5B / %x5D-7E.
    static func quotedStringSafe(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { scalar in
            (0x20...0x7E).contains(scalar.value) && scalar != "\"" && scalar != "\\"
        }))
    }
}
