import IDTokens
import Testing
import TestSupport

@Suite("DecodedToken")
struct DecodedTokenTests {
    @Test("exposes header, claims, signing input and signature")
    func parts() throws {
        let factory = TokenFactory()
        let payload = factory.payloadJSON(uid: "u1", now: 1_700_000_000)
        let token = factory.token(headerJSON: factory.headerJSON(), payloadJSON: payload)
        let decoded = try DecodedToken(compact: token)
        let parts = try #require(TokenParts(compact: token))
        #expect(decoded.keyID == TestKeys.primaryKeyID)
        #expect(decoded.algorithm == "RS256")
        #expect(decoded.audience == TestKeys.projectID)
        #expect(decoded.issuer == "https://securetoken.google.com/" + TestKeys.projectID)
        #expect(decoded.subject == "u1")
        #expect(decoded.expiresAt == 1_700_003_600)
        #expect(decoded.issuedAt == 1_700_000_000)
        #expect(decoded.authTime == 1_700_000_000)
        #expect(decoded.notBefore == nil)
        #expect(!decoded.hasCriticalHeader)
        #expect(decoded.payloadJSON == payload)
        #expect(decoded.headerJSON == factory.headerJSON())
        #expect(decoded.signingInput == parts.signingInput)
        #expect(decoded.signature == Base64URL.decode(parts.signature))
        #expect(TestKeys.primaryPublicKey.verifyRS256(signature: decoded.signature, signedBytes: decoded.signingInput))
    }

    @Test("audience is nil unless aud is a string")
    func audienceArray() throws {
        let factory = TokenFactory()
        let decoded = try DecodedToken(compact: factory.token(now: 0, setting: ["aud": #"["storygate-test"]"#]))
        #expect(decoded.audience == nil)
        #expect(decoded.claim("aud") == .array(json: #"["storygate-test"]"#))
    }

    @Test("size limit: exactly 16 KiB decodes structurally, one more byte is too large")
    func sizeLimit() {
        let header = Base64URL.encode(Array(#"{"alg":"RS256","kid":"k"}"#.utf8))
        func token(payloadLength: Int) -> String {
            let filler = String(repeating: "x", count: payloadLength - 8)
            return header + "." + Base64URL.encode(Array(#"{"p":"\#(filler)"}"#.utf8)) + ".AAAA"
        }
        // Find a payload length giving exactly the limit (base64 lengths step by 4/3).
        var exact: String?
        for length in 12_000...12_400 where token(payloadLength: length).utf8.count == DecodedToken.maximumTokenLength {
            exact = token(payloadLength: length)
            break
        }
        if let exact {
            #expect(throws: Never.self) { try DecodedToken(compact: exact) }
            do {
                _ = try DecodedToken(compact: exact + "A")  // now 16 KiB + 1
                Issue.record("accepted")
            } catch {
                #expect(error.reason == .tokenTooLarge)
            }
        } else {
            Issue.record("no exact-length token found")
        }
    }
}
