import Revocation
import Testing

@Suite struct RevocationRuleTests {
    static let openRule = RevocationRule(settings: RevocationSettings(maxAge: 300, failurePolicy: .open, retryAfterFailure: 5))
    static let closedRule = RevocationRule(settings: RevocationSettings(maxAge: 300, failurePolicy: .closed, retryAfterFailure: 5))
    static let now: Double = 1_800_000_000

    @Test(arguments: [
        (UserAccountState.active(disabled: false, validSince: nil), RevocationVerdict.allowed),
        (.active(disabled: false, validSince: now - 100), .allowed),  // iat = now - 100: equal is not earlier
        (.active(disabled: false, validSince: now - 99), .revoked),
        (.active(disabled: true, validSince: nil), .disabled),
        (.active(disabled: true, validSince: now), .disabled),
        (.deleted, .deleted),
    ])
    func verdictOnAFreshState(state: UserAccountState, expected: RevocationVerdict) {
        let known = CachedAccountState(state: state, fetchedAt: Self.now - 10)
        for rule in [Self.openRule, Self.closedRule] {
            #expect(rule.decide(known: known, lastFailureAt: nil, issuedAt: Self.now - 100, now: Self.now) == .decided(expected, stateAge: 10))
        }
    }

    @Test func aStateAtTheMaxAgeIsLookedUpAgain() {
        let known = CachedAccountState(state: .active(disabled: false, validSince: nil), fetchedAt: Self.now - 300)
        #expect(Self.openRule.decide(known: known, lastFailureAt: nil, issuedAt: Self.now - 1000, now: Self.now) == .needsLookup)
        #expect(Self.openRule.decide(known: nil, lastFailureAt: nil, issuedAt: Self.now - 1000, now: Self.now) == .needsLookup)
    }

    @Test func afterARecentFailureTheOpenPolicyUsesTheLastStateHoweverOld() {
        let known = CachedAccountState(state: .active(disabled: false, validSince: Self.now - 5000), fetchedAt: Self.now - 4000)
        #expect(
            Self.openRule.decide(known: known, lastFailureAt: Self.now - 1, issuedAt: Self.now - 6000, now: Self.now) == .decided(.revoked, stateAge: 4000)
        )
        #expect(Self.openRule.decide(known: nil, lastFailureAt: Self.now - 1, issuedAt: 0, now: Self.now) == .decided(.allowed, stateAge: nil))
        // Once the retry interval has passed, look up again.
        #expect(Self.openRule.decide(known: known, lastFailureAt: Self.now - 5, issuedAt: 0, now: Self.now) == .needsLookup)
    }

    @Test func afterARecentFailureTheClosedPolicyRefusesWithoutAFreshState() {
        let known = CachedAccountState(state: .active(disabled: false, validSince: nil), fetchedAt: Self.now - 301)
        #expect(
            Self.closedRule.decide(known: known, lastFailureAt: Self.now - 1, issuedAt: Self.now, now: Self.now) == .decided(.unavailable, stateAge: 301)
        )
        #expect(Self.closedRule.decide(known: nil, lastFailureAt: Self.now - 1, issuedAt: Self.now, now: Self.now) == .decided(.unavailable, stateAge: nil))
        // A fresh state still decides, failure or not.
        let fresh = CachedAccountState(state: .active(disabled: false, validSince: nil), fetchedAt: Self.now - 1)
        #expect(Self.closedRule.decide(known: fresh, lastFailureAt: Self.now, issuedAt: Self.now, now: Self.now) == .decided(.allowed, stateAge: 1))
    }
}
