import IDTokens
import Testing
import TestSupport

@Suite("FirebaseClaimRules")
struct FirebaseClaimRulesTests {
    static let now: Double = 1_700_000_000

    @Test("issuer and skew clamping")
    func configuration() {
        let rules = FirebaseClaimRules(projectID: "demo", clockSkew: 500)
        #expect(rules.issuer == "https://securetoken.google.com/demo")
        #expect(rules.clockSkew == 60)
        #expect(FirebaseClaimRules(projectID: "demo", clockSkew: -1).clockSkew == 0)
        #expect(FirebaseClaimRules(projectID: "demo", clockSkew: .nan).clockSkew == 0)
    }

    @Test("check applies header and claim rules without a signature")
    func checkWithoutSignature() throws {
        let factory = TokenFactory()
        let rules = FirebaseClaimRules(projectID: TestKeys.projectID, clockSkew: 0)
        // A valid token with its signature replaced by zeros: the rules do not look at it.
        var parts = try #require(TokenParts(compact: factory.token(now: Self.now)))
        parts.signature = "AAAA"
        try rules.check(DecodedToken(compact: parts.compact), now: Self.now)
        do {
            try rules.check(DecodedToken(compact: parts.compact), now: Self.now + 3600)
            Issue.record("accepted")
        } catch {
            #expect(error.reason == .expired)
            #expect(error.message == "The token has expired.")
        }
        let other = FirebaseClaimRules(projectID: "elsewhere", clockSkew: 0)
        #expect(throws: TokenVerificationError.self) { try other.check(DecodedToken(compact: parts.compact), now: Self.now) }
    }

    @Test("skew boundaries move with the configured skew", arguments: [0.0, 30.0, 60.0])
    func skewBoundaries(skew: Double) throws {
        let factory = TokenFactory()
        let rules = FirebaseClaimRules(projectID: TestKeys.projectID, clockSkew: skew)
        let exp = try DecodedToken(compact: factory.token(now: Self.now, setting: ["exp": TokenFactory.number(Self.now - skew)]))
        #expect(throws: TokenVerificationError.self) { try rules.check(exp, now: Self.now) }
        let iat = try DecodedToken(compact: factory.token(now: Self.now, setting: ["iat": TokenFactory.number(Self.now + skew)]))
        try rules.check(iat, now: Self.now)
    }
}
