/// Mints App Check-shaped tokens and the JWKS that verifies them: for `storygate mint-app-check` in development
/// (with the dev key in `certs/dev`) and for tests. Never used to verify anything.
public struct AppCheckTokenMinter: Sendable {
    public let key: RSAPrivateKey
    public let keyID: String

    /// A minter signing with `key` and naming it `keyID` in the header.
    public init(key: RSAPrivateKey, keyID: String) {
        self.key = key
        self.keyID = keyID
    }

    /// A token as Firebase App Check issues it: header `{kid, typ JWT, alg RS256}`; payload `sub` (the app id),
    /// `aud` `["projects/<number>", "projects/<id>"]`, `provider`, `iss`, `exp` = `now + ttl`, `iat` = `now`, `jti`,
    /// in whole seconds.
    public func mint(appID: String, projectNumber: String, projectID: String, now: Double, ttl: Double = 3600) -> String {
        let now = now.rounded(.down)
        let header = "{\"kid\":\(JSONWriter.quoted(self.keyID)),\"typ\":\"JWT\",\"alg\":\"RS256\"}"
        var payload = "{\"sub\":" + JSONWriter.quoted(appID)
        payload += ",\"aud\":[" + JSONWriter.quoted("projects/" + projectNumber) + "," + JSONWriter.quoted("projects/" + projectID) + "]"
        payload += ",\"provider\":\"custom\""
        payload += ",\"iss\":" + JSONWriter.quoted("https://firebaseappcheck.googleapis.com/" + projectNumber)
        payload += ",\"exp\":" + JSONWriter.number(now + ttl.rounded(.down))
        payload += ",\"iat\":" + JSONWriter.number(now)
        payload += ",\"jti\":" + JSONWriter.quoted(Base64URL.encode((0..<16).map { _ in UInt8.random(in: 0...255) }))
        payload += "}"
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        return signingInput + "." + Base64URL.encode(self.key.signRS256(Array(signingInput.utf8)))
    }

    /// The JWKS (`{"keys":[…]}`) that trusts exactly this minter's key.
    public func jwks() throws(KeySetError) -> String {
        Self.jwks([(self.keyID, try self.key.publicKey())])
    }

    /// A JWKS of RSA signing keys, in the order given: `kty`, `use`, `alg`, `kid`, `n`, `e` as App Check serves them.
    public static func jwks(_ keys: [(keyID: String, key: RSAPublicKey)]) -> String {
        let entries = keys.map { entry in
            "{\"kty\":\"RSA\",\"use\":\"sig\",\"alg\":\"RS256\",\"kid\":" + JSONWriter.quoted(entry.keyID)
                + ",\"n\":\"" + Base64URL.encode(entry.key.modulus) + "\",\"e\":\"" + Base64URL.encode(entry.key.exponent) + "\"}"
        }
        return "{\"keys\":[" + entries.joined(separator: ",") + "]}"
    }
}
