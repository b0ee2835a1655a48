import IDTokens
import Testing
import TestSupport

/// The strict JSON parser, exercised through `DecodedToken` (header `{"alg":"RS256","kid":"k"}` and the
/// payload text under test; the signature is irrelevant for decoding).
@Suite("JSON parser (via DecodedToken)")
struct JSONParserTests {
    static func decode(payload: String) throws(TokenVerificationError) -> DecodedToken {
        let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"k"}"#.utf8))
        return try DecodedToken(compact: header + "." + Base64URL.encode(Array(payload.utf8)) + ".AAAA")
    }

    @Test("accepted documents", arguments: [
        "{}",
        " \t\r\n{ \"a\" : 1 } \n",
        #"{"a":[],"b":{},"c":[{}],"d":""}"#,
        #"{"n":[0,-0,1.5,-1.5e+10,2E-3,123456789012345678901234567890]}"#,
        #"{"s":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}"#,
        #"{"u":"日本語 😀"}"#,
        #"{"t":true,"f":false,"z":null}"#,
        #"{"a":1,"A":2}"#,
    ])
    func accepted(json: String) throws {
        let token = try Self.decode(payload: json)
        #expect(token.payloadJSON == json)
    }

    @Test("refused documents", arguments: [
        "", " ", "[]", "\"x\"", "1", "null",
        "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\" 1}", "{a:1}", "{\"a\":1,}", "{,}", "{\"a\":[1,]}", "{\"a\":[,1]}",
        "{\"a\":1}{}", "{\"a\":1} x", "{\"a\":01}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":1e}", "{\"a\":+1}",
        "{\"a\":NaN}", "{\"a\":Infinity}", "{\"a\":-Infinity}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":True}",
        "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"\\u12G4\"}", "{\"a\":\"\\uD800\"}", "{\"a\":\"\\uDC00\"}",
        "{\"a\":\"\\uD800\\u0041\"}", "{\"a\":\"\u{1}\"}", "{\"a\":\"\t\"}", "{\"a\":\"unterminated}",
        "{\"a\":1 /* c */}", "// c\n{\"a\":1}", "{'a':1}", "{\"a\":1,\"a\":2}", "{\"x\":{\"a\":1,\"a\":1}}",
        "{\"a\":1,\"\\u0061\":2}",
        "{\"d\":" + String(repeating: "[", count: 32) + String(repeating: "]", count: 32) + "}",
    ])
    func refused(json: String) {
        #expect(throws: TokenVerificationError.self) { try Self.decode(payload: json) }
    }

    @Test("invalid UTF-8 is refused", arguments: [
        [0xFF], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC3], [0xE2, 0x82],
    ] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) {
        let payload = Array(#"{"a":""#.utf8) + bytes + Array(#""}"#.utf8)
        let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"k"}"#.utf8))
        #expect(throws: TokenVerificationError.self) {
            try DecodedToken(compact: header + "." + Base64URL.encode(payload) + ".AAAA")
        }
    }

    @Test("nesting: 32 levels accepted, 33 refused")
    func depth() throws {
        _ = try Self.decode(payload: "{\"d\":" + String(repeating: "[", count: 31) + String(repeating: "]", count: 31) + "}")
        #expect(throws: TokenVerificationError.self) {
            try Self.decode(payload: "{\"d\":" + String(repeating: "{\"e\":", count: 32) + "1" + String(repeating: "}", count: 32) + "}")
        }
    }

    @Test("many members: duplicates found in large objects too")
    func largeObjects() throws {
        let members = (0..<500).map { "\"k\($0)\":\($0)" }
        _ = try Self.decode(payload: "{" + members.joined(separator: ",") + "}")
        #expect(throws: TokenVerificationError.self) {
            try Self.decode(payload: "{" + (members + ["\"k250\":0"]).joined(separator: ",") + "}")
        }
    }

    @Test("typed claim access")
    func typedAccess() throws {
        let token = try Self.decode(payload: #"{"s":"a\u00e9\"","n":-2.5e2,"b":false,"z":null,"o":{"x":[1]},"a":[1,"2"],"exp":1e400}"#)
        #expect(token.claim("s") == .string("aé\""))
        #expect(token.claim("n") == .number(-250))
        #expect(token.claim("b") == .bool(false))
        #expect(token.claim("z") == .null)
        #expect(token.claim("o") == .object(json: #"{"x":[1]}"#))
        #expect(token.claim("a") == .array(json: #"[1,"2"]"#))
        #expect(token.claim("missing") == nil)
        #expect(token.expiresAt == nil)  // infinite is not a usable number
        #expect(token.claimNames == ["s", "n", "b", "z", "o", "a", "exp"])
        #expect(token.keyID == "k")
        #expect(token.algorithm == "RS256")
        #expect(token.headerParameter("kid") == .string("k"))
        #expect(token.signature == [0, 0, 0])
    }
}
