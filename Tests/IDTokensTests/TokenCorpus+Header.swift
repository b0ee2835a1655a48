import IDTokens
import TestSupport

// Header cases; the payload is the standard one (see TokenCorpus.swift) unless a comment says otherwise.
extension Corpus {
    static let headerCases: [TokenCase] = [
        // {"alg":"none","kid":…}, signature part empty: the empty part is refused before alg is read.
        TokenCase("alg none, empty signature", .malformed, build: { f in
            var parts = f.unsignedParts(headerJSON: f.headerJSON(setting: ["alg": #""none""#]), payloadJSON: f.payloadJSON(now: now))
            parts.signature = ""
            return parts.compact
        }),
        // {"alg":"none","kid":…} with a real RS256 signature attached.
        TokenCase("alg none, signed", .unsupportedAlgorithm, build: header(setting: ["alg": #""none""#])),
        // {"alg":"HS256","kid":…}, signature = HMAC-SHA256 keyed with the trusted public key's PEM (key confusion).
        TokenCase("HS256 with the public key as HMAC secret", .unsupportedAlgorithm, build: { f in
            var parts = f.unsignedParts(headerJSON: f.headerJSON(setting: ["alg": #""HS256""#]), payloadJSON: f.payloadJSON(now: now))
            let secret = Array(TestKeys.primaryPublicKey.publicKeyPEM.utf8)
            parts.signature = Base64URL.encode(TokenDigests.hmacSHA256(key: secret, message: parts.signingInput))
            return parts.compact
        }),
        // {"alg":"RS512",…} (signature is RS256; refused on alg alone).
        TokenCase("alg RS512", .unsupportedAlgorithm, build: header(setting: ["alg": #""RS512""#])),
        // {"alg":"PS256",…}.
        TokenCase("alg PS256", .unsupportedAlgorithm, build: header(setting: ["alg": #""PS256""#])),
        // {"alg":"ES256",…} with a 64-byte signature.
        TokenCase("alg ES256", .unsupportedAlgorithm, build: { f in
            f.token(headerJSON: f.headerJSON(setting: ["alg": #""ES256""#]), payloadJSON: f.payloadJSON(now: now), signature: Array(repeating: 7, count: 64))
        }),
        // {"alg":"rs256",…}: case matters.
        TokenCase("alg lowercase rs256", .unsupportedAlgorithm, build: header(setting: ["alg": #""rs256""#])),
        // {"alg":"RS256 ",…}: trailing space.
        TokenCase("alg with trailing space", .unsupportedAlgorithm, build: header(setting: ["alg": #""RS256 ""#])),
        // {"alg":256,…}.
        TokenCase("alg not a string", .unsupportedAlgorithm, build: header(setting: ["alg": "256"])),
        // {"alg":["RS256"],…}.
        TokenCase("alg as array", .unsupportedAlgorithm, build: header(setting: ["alg": #"["RS256"]"#])),
        // {"kid":…,"typ":"JWT"}: no alg.
        TokenCase("alg missing", .unsupportedAlgorithm, build: header(removing: ["alg"])),
        // {"alg":"RS\u0032\u0035\u0036",…}: "RS256" spelled with escapes, accepted.
        TokenCase("alg with escapes", nil, build: header(setting: ["alg": #""RS\u0032\u0035\u0036""#])),
        // {"alg":"RS256","typ":"JWT"}: no kid.
        TokenCase("kid missing", .missingKeyID, build: header(removing: ["kid"])),
        // {"alg":"RS256","kid":"",…}.
        TokenCase("kid empty", .missingKeyID, build: header(setting: ["kid": #""""#])),
        // {"alg":"RS256","kid":42,…}.
        TokenCase("kid number", .missingKeyID, build: header(setting: ["kid": "42"])),
        // {"alg":"RS256","kid":null,…}.
        TokenCase("kid null", .missingKeyID, build: header(setting: ["kid": "null"])),
        // {"alg":"RS256","kid":"no-such-key",…}.
        TokenCase("kid unknown", .unknownKey, build: header(setting: ["kid": #""no-such-key""#])),
        // {"alg":"RS256","kid":…,"typ":"JWT","crit":["exp"]}.
        TokenCase("crit present", .malformed, build: header(setting: ["crit": #"["exp"]"#])),
        // {"alg":"RS256","kid":…,"typ":"JWT","crit":[]}: any crit is refused.
        TokenCase("crit empty", .malformed, build: header(setting: ["crit": "[]"])),
        // {"alg":"RS256","kid":…}: no typ, which is not checked.
        TokenCase("typ absent", nil, build: header(removing: ["typ"])),
        // {"alg":"RS256","kid":…,"typ":"at+jwt"}.
        TokenCase("typ other", nil, build: header(setting: ["typ": #""at+jwt""#])),
        // {"alg":"RS256","alg":"RS256","kid":…}: duplicate header parameter.
        TokenCase("duplicate alg", .malformed, build: { f in
            f.token(headerJSON: #"{"alg":"RS256","alg":"RS256","kid":"\#(f.keyID)"}"#, payloadJSON: f.payloadJSON(now: now))
        }),
        // {"alg":"HS256","kid":…,"\u0061lg":"RS256"}: duplicate via escaped name.
        TokenCase("duplicate alg via escape", .malformed, build: { f in
            f.token(headerJSON: #"{"alg":"HS256","kid":"\#(f.keyID)","\u0061lg":"RS256"}"#, payloadJSON: f.payloadJSON(now: now))
        }),
        // {"alg":"none","kid":…,"alg\u0000":"RS256"}: the twin's name has four characters; it is not alg.
        TokenCase("alg none, an alg NUL twin", .unsupportedAlgorithm, build: header(setting: ["alg": #""none""#, "alg\u{0}": #""RS256""#])),
        // Header "[\"RS256\"]": not an object.
        TokenCase("header not an object", .malformed, build: { f in
            f.token(headerJSON: #"["RS256"]"#, payloadJSON: f.payloadJSON(now: now))
        }),
    ]
}
