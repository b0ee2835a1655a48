import IDTokens

/// The signed JWT a service account presents to its `token_uri` in the OAuth 2.0 JWT bearer grant (RFC 7523 §2.1).
///
/// Header `{alg RS256, typ JWT, kid private_key_id}`; claims `iss` = `client_email`, `scope`, `aud` = `token_uri`,
/// `iat` and `exp` (whole seconds, `exp - iat` at most 3600 as Google requires).
public struct JWTBearerAssertion: Sendable {
    /// The scope Google's Firebase APIs accept.
    public static let cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"
    /// The grant type of RFC 7523.
    public static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// The longest lifetime Google accepts.
    public static let maximumLifetime: Double = 3600

    /// The compact JWS.
    public let compact: String

    /// An assertion for `account`, issued at `now` (rounded down) and valid for `lifetime` seconds (capped at 3600).
    public init(account: ServiceAccount, scope: String = Self.cloudPlatformScope, now: Double, lifetime: Double = Self.maximumLifetime) {
        let issuedAt = now.rounded(.down)
        let expiresAt = issuedAt + min(lifetime, Self.maximumLifetime).rounded(.down)
        let header = "{\"alg\":\"RS256\",\"typ\":\"JWT\",\"kid\":\(JSONWriter.quoted(account.privateKeyID))}"
        var claims = "{\"iss\":" + JSONWriter.quoted(account.clientEmail)
        claims += ",\"scope\":" + JSONWriter.quoted(scope)
        claims += ",\"aud\":" + JSONWriter.quoted(account.tokenURI)
        claims += ",\"iat\":" + JSONWriter.number(issuedAt)
        claims += ",\"exp\":" + JSONWriter.number(expiresAt) + "}"
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        self.compact = signingInput + "." + Base64URL.encode(account.privateKey.signRS256(Array(signingInput.utf8)))
    }

    /// The `application/x-www-form-urlencoded` body of the token request.
    public var formBody: String {
        // The assertion is base64url and dots, none of which form encoding changes.
        "grant_type=" + Self.grantType.replacingColons() + "&assertion=" + self.compact
    }
}

extension String {
    /// The grant type with `:` percent-encoded, as form encoding writes it.
    fileprivate func replacingColons() -> String {
        var output = ""
        for character in self { output += character == ":" ? "%3A" : String(character) }
        return output
    }
}
