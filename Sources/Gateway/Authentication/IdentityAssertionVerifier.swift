public import GatewayConfig
public import HTTPTypes
import IDTokens

/// Accepts the signed identity assertion another StoryGate (or anything holding the shared key) puts on the
/// requests it forwards, so a gateway behind a gateway knows the caller without a second token check.
///
/// Only built when `proxy.identity_assertion.secret_file` is configured. A request with an `Authorization` header
/// is authenticated by its token and the assertion is ignored; otherwise a valid assertion is the identity
/// (source `assertion`), and an invalid one is a 401 — never an anonymous pass.
public struct IdentityAssertionVerifier: Sendable {
    /// The header carrying the assertion (`proxy.identity_assertion.header`).
    public let header: HTTPField.Name
    let key: IdentityAssertionKey
    /// How old an assertion may be, in seconds (`proxy.identity_assertion.max_age_seconds`); the issuer's clock may be
    /// ahead by `IdentityAssertion.defaultFutureSkew`.
    public let maxAge: Double

    /// The default of `proxy.identity_assertion.max_age_seconds`.
    public static let defaultMaxAge = IdentityAssertion.defaultMaxAge

    /// nil when no secret is configured.
    /// - Throws: when the header is not a field name or the secret is shorter than 32 bytes.
    public init?(settings: ProxySettings) throws(ConfigurationError) {
        guard let secret = settings.assertionSecret else { return nil }
        self.header = try Self.headerName(settings.assertionHeader)
        guard let key = IdentityAssertionKey(Array(secret.value.utf8)) else {
            throw ConfigurationError(
                variable: "proxy.identity_assertion.secret_file",
                message: "must hold at least \(IdentityAssertionKey.minimumByteCount) bytes (for example `openssl rand -base64 48`)"
            )
        }
        self.key = key
        self.maxAge = settings.assertionMaxAgeSeconds
    }

    /// The configured assertion header as a field name.
    static func headerName(_ text: String) throws(ConfigurationError) -> HTTPField.Name {
        guard let name = HTTPField.Name(text) else {
            throw ConfigurationError(variable: "proxy.identity_assertion.header", message: "is not a header name: '\(text.prefix(60))'")
        }
        return name
    }

    /// The identity an assertion header value carries.
    func identity(_ value: String, now: Double) throws(GatewayError) -> Identity {
        do {
            let assertion = try IdentityAssertion.verify(header: value, key: self.key, now: now, maxAge: self.maxAge)
            return Identity(uid: assertion.uid, source: .assertion, token: nil)
        } catch {
            throw GatewayError.invalidToken(error.message, reason: "assertion_" + error.reason.rawValue)
        }
    }
}
