public import IDTokens

/// Builds ID tokens for tests: arbitrary header and payload JSON text, signed RS256 with a key, with every
/// part open to tampering. Used by the IDTokens tests and the gateway's end-to-end tests.
///
/// ```swift
/// let factory = TokenFactory()                                   // TestKeys.primary, trusted by TestKeys.keySet
/// let valid = factory.token(now: 1_700_000_000)                  // a valid Firebase token for TestKeys.projectID
/// let expired = factory.token(now: 1_700_000_000, setting: ["exp": "1699999999"])
/// let raw = factory.token(headerJSON: #"{"alg":"none"}"#, payloadJSON: "{}", signature: [])
/// ```
public struct TokenFactory: Sendable {
    /// The signing key.
    public let key: RSAPrivateKey
    /// The `kid` written in headers built by `headerJSON()`.
    public let keyID: String
    /// The project the payloads are for (`aud`, and `iss` = `https://securetoken.google.com/<projectID>`).
    public let projectID: String

    /// A factory signing with `key` as `keyID` for `projectID` (defaults: the trusted primary test key).
    public init(key: RSAPrivateKey = TestKeys.primary, keyID: String = TestKeys.primaryKeyID, projectID: String = TestKeys.projectID) {
        self.key = key
        self.keyID = keyID
        self.projectID = projectID
    }

    // MARK: JSON text

    /// Header JSON `{"alg":…,"kid":…,"typ":"JWT"}` with this factory's kid; `setting` replaces or appends members
    /// with raw JSON values, `removing` drops members.
    public func headerJSON(setting: [String: String] = [:], removing: Set<String> = []) -> String {
        Self.object(
            [("alg", Self.quoted("RS256")), ("kid", Self.quoted(keyID)), ("typ", Self.quoted("JWT"))],
            setting: setting, removing: removing
        )
    }

    /// A Firebase payload as `TokenMinter` writes it, in its order: `iss`, `aud`, `auth_time` (= now),
    /// `user_id`, `sub` (= uid), `iat` (= now), `exp` (= now + ttl), `firebase`. `setting` replaces members
    /// in place or appends new ones (sorted by name) with raw JSON values; `removing` drops members.
    public func payloadJSON(
        uid: String = "user-123", now: Double, ttl: Double = 3600,
        setting: [String: String] = [:], removing: Set<String> = []
    ) -> String {
        Self.object(
            [
                ("iss", Self.quoted("https://securetoken.google.com/" + projectID)),
                ("aud", Self.quoted(projectID)),
                ("auth_time", Self.number(now)),
                ("user_id", Self.quoted(uid)),
                ("sub", Self.quoted(uid)),
                ("iat", Self.number(now)),
                ("exp", Self.number(now + ttl)),
                ("firebase", #"{"identities":{},"sign_in_provider":"custom"}"#),
            ],
            setting: setting, removing: removing
        )
    }

    /// An App Check payload as Firebase issues it, in its order: `sub` (= appID), `aud`
    /// (`["projects/<projectNumber>","projects/<projectID>"]`), `provider`, `iss`
    /// (`https://firebaseappcheck.googleapis.com/<projectNumber>`), `exp` (= now + ttl), `iat` (= now), `jti`.
    /// `setting` replaces members in place or appends new ones with raw JSON values; `removing` drops members.
    public func appCheckPayloadJSON(
        appID: String = TestKeys.appCheckAppID, projectNumber: String = TestKeys.projectNumber, now: Double, ttl: Double = 3600,
        setting: [String: String] = [:], removing: Set<String> = []
    ) -> String {
        Self.object(
            [
                ("sub", Self.quoted(appID)),
                ("aud", "[" + Self.quoted("projects/" + projectNumber) + "," + Self.quoted("projects/" + projectID) + "]"),
                ("provider", Self.quoted("debug")),
                ("iss", Self.quoted("https://firebaseappcheck.googleapis.com/" + projectNumber)),
                ("exp", Self.number(now + ttl)),
                ("iat", Self.number(now)),
                ("jti", Self.quoted("jti-0123456789")),
            ],
            setting: setting, removing: removing
        )
    }

    /// A valid App Check token at `now` (header from `headerJSON()`), with the payload edits applied.
    public func appCheckToken(
        appID: String = TestKeys.appCheckAppID, now: Double, ttl: Double = 3600, setting: [String: String] = [:], removing: Set<String> = []
    ) -> String {
        token(headerJSON: headerJSON(), payloadJSON: appCheckPayloadJSON(appID: appID, now: now, ttl: ttl, setting: setting, removing: removing))
    }

    // MARK: Tokens

    /// The parts of a token with exactly these header and payload texts, signed RS256 with `key`.
    public func parts(headerJSON: String, payloadJSON: String) -> TokenParts {
        var parts = unsignedParts(headerJSON: headerJSON, payloadJSON: payloadJSON)
        parts.signature = Base64URL.encode(key.signRS256(parts.signingInput))
        return parts
    }

    /// The header and payload encoded, with an empty signature part.
    public func unsignedParts(headerJSON: String, payloadJSON: String) -> TokenParts {
        TokenParts(header: Base64URL.encode(Array(headerJSON.utf8)), payload: Base64URL.encode(Array(payloadJSON.utf8)), signature: "")
    }

    /// A token with exactly these header and payload texts, signed RS256 with `key`.
    public func token(headerJSON: String, payloadJSON: String) -> String {
        parts(headerJSON: headerJSON, payloadJSON: payloadJSON).compact
    }

    /// A token with exactly these header and payload texts and these raw signature bytes.
    public func token(headerJSON: String, payloadJSON: String, signature: [UInt8]) -> String {
        var parts = unsignedParts(headerJSON: headerJSON, payloadJSON: payloadJSON)
        parts.signature = Base64URL.encode(signature)
        return parts.compact
    }

    /// A token whose signature is `encodedMessage(signingInput)^d mod n`: for crafting defective PKCS#1 v1.5
    /// encodings (see `TokenPKCS1`). The closure receives the signing input and the modulus length.
    public func token(headerJSON: String, payloadJSON: String, encodedMessage: ([UInt8], Int) -> [UInt8]) -> String {
        var parts = unsignedParts(headerJSON: headerJSON, payloadJSON: payloadJSON)
        let block = encodedMessage(parts.signingInput, key.modulusByteCount)
        parts.signature = Base64URL.encode(key.rawPrivateOperation(block))
        return parts.compact
    }

    /// A valid Firebase token at `now` (header from `headerJSON()`), with the payload edits applied.
    public func token(
        uid: String = "user-123", now: Double, ttl: Double = 3600,
        setting: [String: String] = [:], removing: Set<String> = []
    ) -> String {
        token(headerJSON: headerJSON(), payloadJSON: payloadJSON(uid: uid, now: now, ttl: ttl, setting: setting, removing: removing))
    }

    // MARK: JSON helpers

    /// `text` as a JSON string literal (the same writer the minter uses).
    public static func quoted(_ text: String) -> String {
        JSONWriter.quoted(text)
    }

    /// A JSON number: integral values without a fraction.
    public static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 9e15 ? String(Int64(value)) : "\(value)"
    }

    private static func object(_ members: [(String, String)], setting: [String: String], removing: Set<String>) -> String {
        var result: [(String, String)] = []
        for (name, value) in members where !removing.contains(name) {
            result.append((name, setting[name] ?? value))
        }
        let known = Set(members.map(\.0))
        for (name, value) in setting.sorted(by: { $0.key < $1.key }) where !known.contains(name) && !removing.contains(name) {
            result.append((name, value))
        }
        return "{" + result.map { quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }
}
