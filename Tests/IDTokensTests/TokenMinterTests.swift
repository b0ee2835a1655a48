import IDTokens
import Testing
import TestSupport

@Suite("TokenMinter")
struct TokenMinterTests {
    static let now: Double = 1_700_000_000

    @Test("minted tokens verify, with the documented shape")
    func roundTrip() throws {
        let minter = TokenMinter(key: TestKeys.primary, keyID: TestKeys.primaryKeyID)
        let token = minter.mint(uid: "alice", projectID: TestKeys.projectID, now: Self.now, ttl: 600, extraClaims: ["role": "editor", "sub": "mallory"])
        let verifier = TokenVerifier(projects: [FirebaseClaimRules(projectID: TestKeys.projectID, clockSkew: 0)])
        let verified = try verifier.verify(token, now: Self.now + 1, keys: { _ in TestKeys.keySet })
        #expect(verified.uid == "alice")
        #expect(verified.expiresAt == Self.now + 600)
        #expect(verified.issuedAt == Self.now)
        #expect(verified.authTime == Self.now)
        let decoded = try DecodedToken(compact: token)
        #expect(decoded.headerJSON == #"{"alg":"RS256","kid":"test-primary-2048","typ":"JWT"}"#)
        #expect(decoded.claimNames == ["iss", "aud", "auth_time", "user_id", "sub", "iat", "exp", "firebase", "role"])
        #expect(decoded.claim("firebase") == .object(json: #"{"identities":{},"sign_in_provider":"custom"}"#))
        #expect(decoded.claim("role") == .string("editor"))
        #expect(verified.claimsJSON == decoded.payloadJSON)
    }

    @Test("values needing escapes survive")
    func escaping() throws {
        let minter = TokenMinter(key: TestKeys.primary, keyID: "k\"1")
        let token = minter.mint(uid: "ü \"q\" \\ \n", projectID: "p", now: Self.now, extraClaims: ["x": "\u{1}"])
        let decoded = try DecodedToken(compact: token)
        #expect(decoded.subject == "ü \"q\" \\ \n")
        #expect(decoded.keyID == "k\"1")
        #expect(decoded.claim("x") == .string("\u{1}"))
    }

    @Test("minted tokens expire and are refused under another key")
    func refusals() {
        let minter = TokenMinter(key: TestKeys.other, keyID: TestKeys.primaryKeyID)
        let token = minter.mint(uid: "bob", projectID: TestKeys.projectID, now: Self.now)
        let verifier = TokenVerifier(projects: [FirebaseClaimRules(projectID: TestKeys.projectID, clockSkew: 0)])
        #expect(throws: TokenVerificationError.self) {
            try verifier.verify(token, now: Self.now, keys: { _ in TestKeys.keySet })
        }
        let good = TokenMinter(key: TestKeys.primary, keyID: TestKeys.primaryKeyID).mint(uid: "bob", projectID: TestKeys.projectID, now: Self.now, ttl: 10)
        do {
            _ = try verifier.verify(good, now: Self.now + 10, keys: { _ in TestKeys.keySet })
            Issue.record("accepted")
        } catch {
            #expect(error.reason == .expired)
        }
    }
}
