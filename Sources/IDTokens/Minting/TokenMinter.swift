/// Mints Firebase-shaped ID tokens signed with an RSA key: for `storygate mint-token` in development
/// (with the dev key in `certs/dev`) and for tests. Never used to verify anything.
public struct TokenMinter: Sendable {
    /// The claims `mint` writes itself; extra claims with these names are ignored.
    public static let reservedClaims: Set<String> = ["iss", "aud", "auth_time", "user_id", "sub", "iat", "exp", "firebase"]

    public let key: RSAPrivateKey
    public let keyID: String

    /// A minter signing with `key` and naming it `keyID` in the header.
    public init(key: RSAPrivateKey, keyID: String) {
        self.key = key
        self.keyID = keyID
    }

    /// A Firebase-shaped ID token: header `{alg RS256, kid, typ JWT}`; payload `iss`, `aud`, `auth_time`,
    /// `user_id`, `sub`, `iat`, `exp`, `firebase {identities {}, sign_in_provider "custom"}`, then the
    /// extra string claims sorted by name (reserved names are skipped). `iat` = `auth_time` = `now`,
    /// `exp` = `now + ttl`, in whole seconds as Firebase issues them.
    public func mint(uid: String, projectID: String, now: Double, ttl: Double = 3600, extraClaims: [String: String] = [:]) -> String {
        let now = now.rounded(.down)
        let ttl = ttl.rounded(.down)
        let header = "{\"alg\":\"RS256\",\"kid\":\(JSONWriter.quoted(keyID)),\"typ\":\"JWT\"}"
        var payload = "{\"iss\":" + JSONWriter.quoted("https://securetoken.google.com/" + projectID)
        payload += ",\"aud\":" + JSONWriter.quoted(projectID)
        payload += ",\"auth_time\":" + JSONWriter.number(now)
        payload += ",\"user_id\":" + JSONWriter.quoted(uid)
        payload += ",\"sub\":" + JSONWriter.quoted(uid)
        payload += ",\"iat\":" + JSONWriter.number(now)
        payload += ",\"exp\":" + JSONWriter.number(now + ttl)
        payload += ",\"firebase\":{\"identities\":{},\"sign_in_provider\":\"custom\"}"
        for (name, value) in extraClaims.sorted(by: { $0.key < $1.key }) where !Self.reservedClaims.contains(name) {
            payload += "," + JSONWriter.quoted(name) + ":" + JSONWriter.quoted(value)
        }
        payload += "}"
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        return signingInput + "." + Base64URL.encode(key.signRS256(Array(signingInput.utf8)))
    }
}
