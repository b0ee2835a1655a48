import IDTokens
import TestSupport

// Structure, base64url and JSON cases; the claims are the standard ones (see TokenCorpus.swift) unless a
// comment gives the payload text.
extension Corpus {
    static let encodingCases: [TokenCase] = [
        // "header.payload": two parts.
        TokenCase("two parts", .malformed, build: tampered { _ = $0 }) .with { "\($0.split(separator: ".").prefix(2).joined(separator: "."))" },
        // "header.payload.signature.extra": four parts.
        TokenCase("four parts", .malformed, build: tampered { $0.signature += ".AAAA" }),
        // "header..signature": empty payload part.
        TokenCase("empty payload part", .malformed, build: tampered { $0.payload = "" }),
        // ".payload.signature": empty header part.
        TokenCase("empty header part", .malformed, build: tampered { $0.header = "" }),
        // "": nothing at all.
        TokenCase("empty token", .malformed, build: { _ in "" }),
        // "..": three empty parts.
        TokenCase("only dots", .malformed, build: { _ in ".." }),
        // Header part with "=" padding appended (and a length that would otherwise be fine).
        TokenCase("padding in header", .malformed, build: tampered { $0.header += "==" }),
        // Signature with its last char replaced by "=".
        TokenCase("padding char in signature", .malformed, build: tampered { $0.signature = String($0.signature.dropLast()) + "=" }),
        // A "-" in the signature replaced by "+" (standard base64 alphabet).
        TokenCase("plus in signature", .malformed, build: tampered { $0.signature = "+" + $0.signature.dropFirst() }),
        // A char in the payload replaced by "/".
        TokenCase("slash in payload", .malformed, build: tampered { $0.payload = "/" + $0.payload.dropFirst() }),
        // A space inside the payload part.
        TokenCase("whitespace in payload", .malformed, build: tampered { $0.payload.insert(" ", at: $0.payload.index($0.payload.startIndex, offsetBy: 8)) }),
        // A newline at the end of the token.
        TokenCase("trailing newline", .malformed, build: tampered { $0.signature += "\n" }),
        // A non-ASCII char in the header part.
        TokenCase("non-ASCII in header", .malformed, build: tampered { $0.header = "é" + $0.header.dropFirst() }),
        // Signature (256 bytes = 342 chars, 4 unused low bits) with a last char whose unused bits are set.
        TokenCase("non-canonical last signature char", .malformed, build: tampered { parts in
            let last = parts.signature.last!
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            let value = alphabet.firstIndex(of: last)!
            parts.signature = String(parts.signature.dropLast()) + String(alphabet[value | 1])
        }),
        // Payload part one char longer (length % 4 == 1 is never valid).
        TokenCase("impossible base64 length", .malformed, build: tampered { $0.payload += "A" }),
        // A payload claim of 16 KiB: the token is over the limit.
        TokenCase("oversized token", .tokenTooLarge, build: payload(setting: ["pad": "\"" + String(repeating: "x", count: 16 * 1024) + "\""])),

        // Payload {…,"firebase":{…},} : trailing comma.
        TokenCase("JSON trailing comma", .malformed, build: { f in
            let json = f.payloadJSON(now: now)
            return f.token(headerJSON: f.headerJSON(), payloadJSON: String(json.dropLast()) + ",}")
        }),
        // Payload with "exp":NaN.
        TokenCase("JSON NaN", .malformed, build: payload(setting: ["exp": "NaN"])),
        // Payload with "exp":Infinity.
        TokenCase("JSON Infinity", .malformed, build: payload(setting: ["exp": "Infinity"])),
        // Payload with "exp":01700003600 (leading zero).
        TokenCase("JSON leading zero", .malformed, build: payload(setting: ["exp": "01700003600"])),
        // Payload with "exp":+1700003600.
        TokenCase("JSON plus sign", .malformed, build: payload(setting: ["exp": "+1700003600"])),
        // Payload with "exp":1700003600. (no fraction digits).
        TokenCase("JSON bare decimal point", .malformed, build: payload(setting: ["exp": "1700003600."])),
        // Payload with "name":"a\xb" (bad escape).
        TokenCase("JSON bad escape", .malformed, build: payload(setting: ["name": #""a\xb""#])),
        // Payload with "name":"\ud800" (lone high surrogate).
        TokenCase("JSON lone high surrogate", .malformed, build: payload(setting: ["name": #""\ud800""#])),
        // Payload with "name":"\udc00x" (lone low surrogate).
        TokenCase("JSON lone low surrogate", .malformed, build: payload(setting: ["name": #""\udc00x""#])),
        // Payload with "name":"a<U+0001>b" (raw control character).
        TokenCase("JSON control character", .malformed, build: payload(setting: ["name": "\"a\u{01}b\""])),
        // Payload with "name":'x' (single quotes).
        TokenCase("JSON single quotes", .malformed, build: payload(setting: ["name": "'x'"])),
        // Payload {…} /* c */ : a comment after the object.
        TokenCase("JSON comment", .malformed, build: { f in f.token(headerJSON: f.headerJSON(), payloadJSON: f.payloadJSON(now: now) + "/* c */") }),
        // Payload {…}x : trailing garbage.
        TokenCase("JSON trailing garbage", .malformed, build: { f in f.token(headerJSON: f.headerJSON(), payloadJSON: f.payloadJSON(now: now) + "x") }),
        // Payload ["storygate-test"]: not an object.
        TokenCase("JSON payload not an object", .malformed, build: rawPayload(#"["storygate-test"]"#)),
        // Payload "" (empty).
        TokenCase("JSON payload empty text", .malformed, build: { f in
            var parts = f.unsignedParts(headerJSON: f.headerJSON(), payloadJSON: "")
            parts.payload = ""
            parts.signature = "AAAA"
            return parts.compact
        }),
        // Payload with "deep": 33 nested arrays (depth 34 with the object).
        TokenCase("JSON nested too deep", .malformed, build: payload(setting: ["deep": String(repeating: "[", count: 33) + String(repeating: "]", count: 33)])),
        // Payload with "deep": 31 nested arrays (depth 32 with the object): allowed.
        TokenCase("JSON nested to the limit", nil, build: payload(setting: ["deep": String(repeating: "[", count: 31) + String(repeating: "]", count: 31)])),
        // Payload bytes with an invalid UTF-8 byte (0xFF) inside a string.
        TokenCase("JSON invalid UTF-8", .malformed, build: { f in
            var parts = f.unsignedParts(headerJSON: f.headerJSON(), payloadJSON: "")
            let json = Array(f.payloadJSON(now: now, setting: ["name": "\"ab\""]).utf8)
            let index = json.firstIndex(of: UInt8(ascii: "b"))!
            var bytes = json
            bytes[index] = 0xFF
            parts.payload = Base64URL.encode(bytes)
            parts.signature = Base64URL.encode(f.key.signRS256(parts.signingInput))
            return parts.compact
        }),
        // Payload with two "sub" members: {…,"sub":"user-123",…,"sub":"admin"}.
        TokenCase("duplicate sub", .malformed, build: { f in
            let json = f.payloadJSON(now: now)
            return f.token(headerJSON: f.headerJSON(), payloadJSON: String(json.dropLast()) + #","sub":"admin"}"#)
        }),
        // Payload with two "exp" members, the second far in the future.
        TokenCase("duplicate exp", .malformed, build: { f in
            let json = f.payloadJSON(now: now)
            return f.token(headerJSON: f.headerJSON(), payloadJSON: String(json.dropLast()) + #","exp":9999999999}"#)
        }),
        // Payload with "sub" and "\u0073ub": duplicates after unescaping.
        TokenCase("duplicate sub via escape", .malformed, build: { f in
            let json = f.payloadJSON(now: now)
            return f.token(headerJSON: f.headerJSON(), payloadJSON: String(json.dropLast()) + #","\u0073ub":"admin"}"#)
        }),
        // Payload whose nested "firebase" object repeats "sign_in_provider".
        TokenCase("duplicate nested member", .malformed, build: payload(setting: ["firebase": #"{"sign_in_provider":"custom","sign_in_provider":"password"}"#])),
    ]
}

extension TokenCase {
    /// The same case with its built token transformed.
    func with(_ transform: @escaping @Sendable (String) -> String) -> TokenCase {
        let build = self.build
        return TokenCase(name, expected, keys: keys) { transform(build($0)) }
    }
}
