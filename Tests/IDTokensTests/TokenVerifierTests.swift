import IDTokens
import Testing
import TestSupport

@Suite("TokenVerifier corpus and results")
struct TokenVerifierTests {
    static let allCases = Corpus.claimCases + Corpus.headerCases + Corpus.encodingCases + Corpus.signatureCases

    @Test("corpus is large enough and names are unique")
    func corpusShape() {
        #expect(Self.allCases.count >= 60)
        #expect(Set(Self.allCases.map(\.name)).count == Self.allCases.count)
    }

    @Test("corpus case", arguments: allCases)
    func corpus(_ testCase: TokenCase) {
        let token = testCase.build(Corpus.factory)
        let keys: (String) -> KeySet? = { project in
            testCase.keys == .trusted && project == TestKeys.projectID ? TestKeys.keySet : nil
        }
        do {
            let verified = try Corpus.verifier.verify(token, now: Corpus.now, keys: keys)
            #expect(testCase.expected == nil, "accepted, expected \(String(describing: testCase.expected))")
            #expect(verified.projectID == TestKeys.projectID)
        } catch {
            #expect(error.reason == testCase.expected, "\(error.message)")
            #expect(!error.message.isEmpty)
            if token.count >= 20 { #expect(!error.message.contains(token.prefix(20))) }
        }
    }

    @Test("a valid token yields uid, times and the payload as signed")
    func validTokenResult() throws {
        let payload = Corpus.factory.payloadJSON(uid: "uid-42", now: Corpus.now, ttl: 1800)
        let token = Corpus.factory.token(headerJSON: Corpus.factory.headerJSON(), payloadJSON: payload)
        let verified = try Corpus.verifier.verify(token, now: Corpus.now + 10, keys: { _ in TestKeys.keySet })
        #expect(verified == VerifiedToken(
            uid: "uid-42", projectID: TestKeys.projectID, expiresAt: Corpus.now + 1800,
            issuedAt: Corpus.now, authTime: Corpus.now, claimsJSON: payload
        ))
    }

    @Test("a member whose name is a claim's name and a NUL is not that claim: the uid is the sub")
    func nulTwinIsNotTheClaim() throws {
        let token = Corpus.factory.token(now: Corpus.now, setting: ["sub\u{0}": #""mallory""#])
        let verified = try Corpus.verifier.verify(token, now: Corpus.now, keys: { _ in TestKeys.keySet })
        #expect(verified.uid == "user-123")
        #expect(verified.claimsJSON.contains(#""sub\u0000":"mallory""#))
    }

    @Test("a Substring token verifies like a String")
    func substringToken() throws {
        let header = "Bearer " + Corpus.factory.token(now: Corpus.now)
        let token = header.dropFirst("Bearer ".count)
        let verified = try Corpus.verifier.verify(token, now: Corpus.now, keys: { _ in TestKeys.keySet })
        #expect(verified.uid == "user-123")
    }

    @Test("cheap checks come before key lookup: junk never asks for keys")
    func orderBeforeKeys() {
        for token in ["junk", Corpus.factory.token(now: Corpus.now, setting: ["exp": "1"])] {
            var asked = false
            #expect(throws: TokenVerificationError.self) {
                try Corpus.verifier.verify(token, now: Corpus.now, keys: { _ in asked = true; return TestKeys.keySet })
            }
            #expect(!asked)
        }
    }

    @Test("messages never echo long claim values")
    func messagesAreSafe() {
        let long = String(repeating: "z", count: 200)
        let token = Corpus.factory.token(now: Corpus.now, setting: ["aud": "\"\(long)\"", "sub": "\"\(long)\""])
        do {
            _ = try Corpus.verifier.verify(token, now: Corpus.now, keys: { _ in TestKeys.keySet })
            Issue.record("accepted")
        } catch {
            #expect(!error.message.contains("zzzz"))
            #expect(error.description == error.message)
        }
    }

    @Test("every reason has a distinct snake_case label")
    func reasonLabels() {
        let labels = TokenVerificationError.Reason.allCases.map(\.rawValue)
        #expect(Set(labels).count == labels.count)
        #expect(labels.allSatisfy { $0.allSatisfy { $0.isLowercase || $0 == "_" } })
    }
}
