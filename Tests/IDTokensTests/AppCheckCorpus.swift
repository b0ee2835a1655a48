import IDTokens
import TestSupport

/// One App Check corpus entry: how the token is built and what `AppCheckTokenVerifier` must answer (nil = accepted).
struct AppCheckCase: Sendable, CustomStringConvertible {
    let name: String
    let expected: TokenVerificationError.Reason?
    /// Verified with the rules that allow only `AppCheckCorpus.allowedApps`, instead of any app.
    let restricted: Bool
    /// Verified with no key set at all (never loaded).
    let keyless: Bool
    let build: @Sendable (TokenFactory) -> String

    init(
        _ name: String, _ expected: TokenVerificationError.Reason?, restricted: Bool = false, keyless: Bool = false,
        build: @escaping @Sendable (TokenFactory) -> String
    ) {
        self.name = name
        self.expected = expected
        self.restricted = restricted
        self.keyless = keyless
        self.build = build
    }

    var description: String { name }
}

// The App Check corpus. Unless a comment says otherwise, each token is:
//   header  {"alg":"RS256","kid":"test-primary-2048","typ":"JWT"}
//   payload {"sub":"1:123456789012:web:0a1b2c3d4e5f6a7b",
//            "aud":["projects/123456789012","projects/storygate-test"],"provider":"debug",
//            "iss":"https://firebaseappcheck.googleapis.com/123456789012","exp":1700003600,"iat":1700000000,
//            "jti":"jti-0123456789"}
// signed RS256 with TestKeys.primary; verified at now = 1700000000 with a clock skew of 5 s, for project number
// 123456789012 and project id storygate-test, any app (restricted: only the app above and "1:1:ios:ffff").
// The comment on each case gives only what differs.
enum AppCheckCorpus {
    static let now: Double = 1_700_000_000
    static let allowedApps: Set<String> = [TestKeys.appCheckAppID, "1:1:ios:ffff"]
    static let rules = AppCheckClaimRules(projectNumber: TestKeys.projectNumber, projectID: TestKeys.projectID, clockSkew: 5)
    static let restrictedRules = AppCheckClaimRules(
        projectNumber: TestKeys.projectNumber, projectID: TestKeys.projectID, appIDs: allowedApps, clockSkew: 5
    )
    static let factory = TokenFactory()

    static func payload(setting: [String: String] = [:], removing: Set<String> = []) -> @Sendable (TokenFactory) -> String {
        { $0.appCheckToken(now: now, setting: setting, removing: removing) }
    }

    static func header(setting: [String: String] = [:], removing: Set<String> = []) -> @Sendable (TokenFactory) -> String {
        { $0.token(headerJSON: $0.headerJSON(setting: setting, removing: removing), payloadJSON: $0.appCheckPayloadJSON(now: now)) }
    }

    static func tampered(_ edit: @escaping @Sendable (inout TokenParts) -> Void) -> @Sendable (TokenFactory) -> String {
        { factory in
            var parts = TokenParts(compact: factory.appCheckToken(now: now))!
            edit(&parts)
            return parts.compact
        }
    }

    static let aud = #"["projects/123456789012","projects/storygate-test"]"#

    static let cases: [AppCheckCase] = valid + header + claims + signatureAndEncoding

    static let valid: [AppCheckCase] = [
        // As above.
        AppCheckCase("valid App Check token", nil, build: payload()),
        // exp 1700003600.5, iat 1699999999.25.
        AppCheckCase("fractional times", nil, build: payload(setting: ["exp": "1700003600.5", "iat": "1699999999.25"])),
        // exp 1.7000036e9.
        AppCheckCase("exp in exponent notation", nil, build: payload(setting: ["exp": "1.7000036e9"])),
        // aud ["projects/storygate-test","projects/123456789012"]: order does not matter.
        AppCheckCase("aud in the other order", nil, build: payload(setting: ["aud": #"["projects/storygate-test","projects/123456789012"]"#])),
        // aud with a third entry.
        AppCheckCase("aud with an extra entry", nil, build: payload(setting: ["aud": #"["projects/123456789012","projects/storygate-test","projects/other"]"#])),
        // aud ["projects\/123456789012","projects\u002fstorygate-test"]: escapes compare after unescaping.
        AppCheckCase("aud with escapes", nil, build: payload(setting: ["aud": #"["projects\/123456789012","projects\u002fstorygate-test"]"#])),
        // No provider, no jti: neither is a rule.
        AppCheckCase("provider and jti absent", nil, build: payload(removing: ["provider", "jti"])),
        // Extra claims of every JSON type.
        AppCheckCase("extra claims of all types", nil, build: payload(setting: ["x": #"{"a":[1,true,null,"\u00e9"]}"#, "y": "false"])),
        // exp 1700000000 == now: inside the skew.
        AppCheckCase("exp == now", nil, build: payload(setting: ["exp": "1700000000"])),
        // iat 1700000005 == now + skew.
        AppCheckCase("iat == now + skew", nil, build: payload(setting: ["iat": "1700000005"])),
        // nbf 1700000005 == now + skew.
        AppCheckCase("nbf == now + skew", nil, build: payload(setting: ["nbf": "1700000005"])),
        // Restricted rules; the app is allowed.
        AppCheckCase("allowed app", nil, restricted: true, build: payload()),
        // Restricted rules; sub "1:1:ios:ffff", the other allowed app.
        AppCheckCase("the other allowed app", nil, restricted: true, build: payload(setting: ["sub": #""1:1:ios:ffff""#])),
        // Header with an extra parameter x5t.
        AppCheckCase("extra header parameter", nil, build: header(setting: ["x5t": #""abc""#])),
    ]

    static let header: [AppCheckCase] = [
        // alg "RS512".
        AppCheckCase("alg RS512", .unsupportedAlgorithm, build: header(setting: ["alg": #""RS512""#])),
        // alg "none".
        AppCheckCase("alg none", .unsupportedAlgorithm, build: header(setting: ["alg": #""none""#])),
        // alg "HS256".
        AppCheckCase("alg HS256", .unsupportedAlgorithm, build: header(setting: ["alg": #""HS256""#])),
        // alg "rs256".
        AppCheckCase("alg lowercase", .unsupportedAlgorithm, build: header(setting: ["alg": #""rs256""#])),
        // alg "RS256 " (trailing space).
        AppCheckCase("alg with a trailing space", .unsupportedAlgorithm, build: header(setting: ["alg": #""RS256 ""#])),
        // No alg.
        AppCheckCase("alg missing", .unsupportedAlgorithm, build: header(removing: ["alg"])),
        // alg 256.
        AppCheckCase("alg a number", .unsupportedAlgorithm, build: header(setting: ["alg": "256"])),
        // No typ.
        AppCheckCase("typ missing", .wrongType, build: header(removing: ["typ"])),
        // typ "jwt".
        AppCheckCase("typ lowercase", .wrongType, build: header(setting: ["typ": #""jwt""#])),
        // typ "JWS".
        AppCheckCase("typ JWS", .wrongType, build: header(setting: ["typ": #""JWS""#])),
        // typ "at+jwt".
        AppCheckCase("typ at+jwt", .wrongType, build: header(setting: ["typ": #""at+jwt""#])),
        // typ null.
        AppCheckCase("typ null", .wrongType, build: header(setting: ["typ": "null"])),
        // crit ["exp"].
        AppCheckCase("crit present", .malformed, build: header(setting: ["crit": #"["exp"]"#])),
        // No kid.
        AppCheckCase("kid missing", .missingKeyID, build: header(removing: ["kid"])),
        // kid "".
        AppCheckCase("kid empty", .missingKeyID, build: header(setting: ["kid": #""""#])),
        // kid 7.
        AppCheckCase("kid a number", .missingKeyID, build: header(setting: ["kid": "7"])),
        // kid "rotated-away": not in the set.
        AppCheckCase("kid unknown", .unknownKey, build: header(setting: ["kid": #""rotated-away""#])),
        // As above, but no key set was ever loaded.
        AppCheckCase("keys never loaded", .keysUnavailable, keyless: true, build: payload()),
    ]

    static let claims: [AppCheckCase] = [
        // No iss.
        AppCheckCase("iss missing", .wrongIssuer, build: payload(removing: ["iss"])),
        // iss for project number 999.
        AppCheckCase("iss of another project", .wrongIssuer, build: payload(setting: ["iss": #""https://firebaseappcheck.googleapis.com/999""#])),
        // iss of ID tokens.
        AppCheckCase("iss of ID tokens", .wrongIssuer, build: payload(setting: ["iss": #""https://securetoken.google.com/storygate-test""#])),
        // iss with a trailing slash.
        AppCheckCase("iss with a trailing slash", .wrongIssuer, build: payload(setting: ["iss": #""https://firebaseappcheck.googleapis.com/123456789012/""#])),
        // iss over http.
        AppCheckCase("iss over http", .wrongIssuer, build: payload(setting: ["iss": #""http://firebaseappcheck.googleapis.com/123456789012""#])),
        // iss with the project id instead of the number.
        AppCheckCase("iss with the project id", .wrongIssuer, build: payload(setting: ["iss": #""https://firebaseappcheck.googleapis.com/storygate-test""#])),
        // iss as an array.
        AppCheckCase("iss an array", .wrongIssuer, build: payload(setting: ["iss": #"["https://firebaseappcheck.googleapis.com/123456789012"]"#])),
        // No aud.
        AppCheckCase("aud missing", .wrongAudience, build: payload(removing: ["aud"])),
        // aud "projects/123456789012": a string, not an array.
        AppCheckCase("aud a string", .wrongAudience, build: payload(setting: ["aud": #""projects/123456789012""#])),
        // aud ["projects/123456789012"]: the project id is missing (the Admin SDK's rule).
        AppCheckCase("aud without the project id", .wrongAudience, build: payload(setting: ["aud": #"["projects/123456789012"]"#])),
        // aud ["projects/storygate-test"]: the number is missing (Google's rule for custom backends).
        AppCheckCase("aud without the project number", .wrongAudience, build: payload(setting: ["aud": #"["projects/storygate-test"]"#])),
        // aud [].
        AppCheckCase("aud empty", .wrongAudience, build: payload(setting: ["aud": "[]"])),
        // aud ["storygate-test"]: the ID-token audience.
        AppCheckCase("aud of ID tokens", .wrongAudience, build: payload(setting: ["aud": #"["storygate-test","123456789012"]"#])),
        // aud of another project.
        AppCheckCase("aud of another project", .wrongAudience, build: payload(setting: ["aud": #"["projects/999","projects/other"]"#])),
        // aud [..., 5]: an element that is not a string.
        AppCheckCase("aud with a number element", .wrongAudience, build: payload(setting: ["aud": #"["projects/123456789012","projects/storygate-test",5]"#])),
        // aud [["projects/123456789012","projects/storygate-test"]]: nested.
        AppCheckCase("aud nested", .wrongAudience, build: payload(setting: ["aud": "[" + aud + "]"])),
        // aud ["Projects/123456789012","projects/storygate-test"]: case matters.
        AppCheckCase("aud case differs", .wrongAudience, build: payload(setting: ["aud": #"["Projects/123456789012","projects/storygate-test"]"#])),
        // aud "projects/123456789012 projects/storygate-test": both as one string.
        AppCheckCase("aud both in one string", .wrongAudience, build: payload(setting: ["aud": #""projects/123456789012,projects/storygate-test""#])),
        // exp 1699999995: now == exp + skew.
        AppCheckCase("exp + skew == now", .expired, build: payload(setting: ["exp": "1699999995", "iat": "1699990000"])),
        // exp 1699996400: an hour ago.
        AppCheckCase("expired an hour ago", .expired, build: payload(setting: ["exp": "1699996400", "iat": "1699992800"])),
        // exp 0.
        AppCheckCase("exp zero", .expired, build: payload(setting: ["exp": "0"])),
        // No exp.
        AppCheckCase("exp missing", .malformed, build: payload(removing: ["exp"])),
        // exp "1700003600".
        AppCheckCase("exp a string", .malformed, build: payload(setting: ["exp": #""1700003600""#])),
        // exp null.
        AppCheckCase("exp null", .malformed, build: payload(setting: ["exp": "null"])),
        // exp 1e400.
        AppCheckCase("exp infinite", .malformed, build: payload(setting: ["exp": "1e400"])),
        // iat 1700000005.001.
        AppCheckCase("iat just in the future", .issuedInFuture, build: payload(setting: ["iat": "1700000005.001"])),
        // iat 1700003000.
        AppCheckCase("iat an hour ahead", .issuedInFuture, build: payload(setting: ["iat": "1700003000"])),
        // No iat.
        AppCheckCase("iat missing", .malformed, build: payload(removing: ["iat"])),
        // iat "1700000000".
        AppCheckCase("iat a string", .malformed, build: payload(setting: ["iat": #""1700000000""#])),
        // nbf 1700000006.
        AppCheckCase("nbf in the future", .notYetValid, build: payload(setting: ["nbf": "1700000006"])),
        // nbf "1700000000".
        AppCheckCase("nbf a string", .malformed, build: payload(setting: ["nbf": #""1700000000""#])),
        // No sub.
        AppCheckCase("sub missing", .invalidSubject, build: payload(removing: ["sub"])),
        // sub "".
        AppCheckCase("sub empty", .invalidSubject, build: payload(setting: ["sub": #""""#])),
        // sub 42.
        AppCheckCase("sub a number", .invalidSubject, build: payload(setting: ["sub": "42"])),
        // sub null.
        AppCheckCase("sub null", .invalidSubject, build: payload(setting: ["sub": "null"])),
        // Restricted rules; sub "1:999:android:beef".
        AppCheckCase("app not allowed", .appNotAllowed, restricted: true, build: payload(setting: ["sub": #""1:999:android:beef""#])),
        // Restricted rules; sub in upper case.
        AppCheckCase("allowed app in another case", .appNotAllowed, restricted: true,
                     build: payload(setting: ["sub": TokenFactory.quoted(TestKeys.appCheckAppID.uppercased())])),
        // A Firebase ID token (TokenFactory's ID-token payload) presented as an App Check token.
        AppCheckCase("an ID token", .wrongIssuer, build: { $0.token(now: now) }),
    ]

    static let signatureAndEncoding: [AppCheckCase] = [
        // Signed with TestKeys.other under the trusted kid.
        AppCheckCase("signed by another key", .badSignature,
                     build: { _ in TokenFactory(key: TestKeys.other).appCheckToken(now: now) }),
        // The payload swapped for another app's after signing.
        AppCheckCase("payload swapped after signing", .badSignature, build: tampered { parts in
            parts.payload = TokenParts(compact: factory.appCheckToken(appID: "1:1:ios:ffff", now: now))!.payload
        }),
        // The signature's last byte dropped (255 bytes for a 256-byte modulus).
        AppCheckCase("signature truncated", .badSignature, build: tampered { $0.signature = Base64URL.encode(Base64URL.decode($0.signature)!.dropLast()) }),
        // The signature's first byte flipped.
        AppCheckCase("signature altered", .badSignature, build: tampered { parts in
            var bytes = Base64URL.decode(parts.signature)!
            bytes[0] ^= 0x01
            parts.signature = Base64URL.encode(bytes)
        }),
        // "header.payload": two parts.
        AppCheckCase("two parts", .malformed, build: tampered { $0.signature = "" }) ,
        // A fourth part.
        AppCheckCase("four parts", .malformed, build: tampered { $0.signature += ".AAAA" }),
        // "".
        AppCheckCase("empty token", .malformed, build: { _ in "" }),
        // Header part with "==" padding.
        AppCheckCase("padding in header", .malformed, build: tampered { $0.header += "==" }),
        // A "+" (standard base64) at the start of the signature.
        AppCheckCase("plus in signature", .malformed, build: tampered { $0.signature = "+" + $0.signature.dropFirst() }),
        // A newline at the end.
        AppCheckCase("trailing newline", .malformed, build: tampered { $0.signature += "\n" }),
        // A payload claim of 16 KiB.
        AppCheckCase("oversized token", .tokenTooLarge, build: payload(setting: ["pad": "\"" + String(repeating: "x", count: 16 * 1024) + "\""])),
        // Payload text "not json".
        AppCheckCase("payload not JSON", .malformed, build: { $0.token(headerJSON: $0.headerJSON(), payloadJSON: "not json") }),
        // Payload with sub twice.
        AppCheckCase("duplicate claim", .malformed, build: { f in
            let json = f.appCheckPayloadJSON(now: now)
            return f.token(headerJSON: f.headerJSON(), payloadJSON: String(json.dropLast()) + #","sub":"1:1:ios:ffff"}"#)
        }),
        // Header text ["RS256"]: an array.
        AppCheckCase("header an array", .malformed, build: { $0.token(headerJSON: #"["RS256"]"#, payloadJSON: $0.appCheckPayloadJSON(now: now)) }),
        // Payload with a trailing comma.
        AppCheckCase("payload trailing comma", .malformed, build: { f in
            let json = f.appCheckPayloadJSON(now: now)
            return f.token(headerJSON: f.headerJSON(), payloadJSON: String(json.dropLast()) + ",}")
        }),
    ]
}
