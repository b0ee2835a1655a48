import Testing

@testable import IDTokens

@Suite("Certificate refresh state: freshness, backoff, stale-if-error, unknown-kid cooldown (injected time)")
struct CertificateRefreshStateTests {
    let keys = KeySet(keys: [:])

    @Test("fresh for max-age, refreshed ahead of expiry")
    func freshness() {
        var state = CertificateRefreshState()
        #expect(state.usableKeys(now: 0) == nil)
        #expect(state.nextRefreshAt <= 0)
        state.recordSuccess(keys: self.keys, maxAge: 1000, now: 100)
        #expect(state.expiresAt == 1100)
        #expect(state.nextRefreshAt == 900)
        #expect(state.usableKeys(now: 1099) != nil)
        #expect(!state.isStale(now: 1099))
        #expect(state.isStale(now: 1100))
        #expect(state.age(now: 150) == 50)
    }

    @Test("max-age is clamped; none means the default lifetime")
    func clamping() {
        var state = CertificateRefreshState()
        state.recordSuccess(keys: self.keys, maxAge: 0, now: 0)
        #expect(state.expiresAt == state.policy.minimumLifetime)
        state.recordSuccess(keys: self.keys, maxAge: 10_000_000, now: 0)
        #expect(state.expiresAt == state.policy.maximumLifetime)
        state.recordSuccess(keys: self.keys, maxAge: nil, now: 0)
        #expect(state.expiresAt == state.policy.defaultLifetime)
    }

    @Test("a local file never expires")
    func file() {
        var state = CertificateRefreshState()
        state.recordSuccess(keys: self.keys, maxAge: .infinity, now: 0)
        #expect(state.nextRefreshAt == .infinity)
        #expect(state.usableKeys(now: 1e12) != nil)
    }

    @Test("failures back off exponentially up to the cap and keep the stale set, bounded")
    func backoff() {
        var state = CertificateRefreshState()
        state.recordSuccess(keys: self.keys, maxAge: 3600, now: 0)
        var delays: [Double] = []
        for attempt in 0..<10 {
            let now = 3600 + Double(attempt)
            state.recordFailure(now: now)
            delays.append(state.nextRefreshAt - now)
        }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60, 60])
        #expect(state.consecutiveFailures == 10)
        // stale-if-error: still usable after expiry, until the bound
        #expect(state.usableKeys(now: 3600 + 100) != nil)
        #expect(state.usableKeys(now: 3600 + state.policy.staleIfError - 1) != nil)
        #expect(state.usableKeys(now: 3600 + state.policy.staleIfError) == nil)
        // a success resets the backoff
        state.recordSuccess(keys: self.keys, maxAge: 3600, now: 5000)
        state.recordFailure(now: 5001)
        #expect(state.nextRefreshAt == 5002)
    }

    @Test("jitter shortens a backoff but never below the initial backoff")
    func jitter() {
        var state = CertificateRefreshState()
        for _ in 0..<8 { state.recordFailure(now: 0, jitter: 0.5) }
        #expect(state.nextRefreshAt == 30)
        var zero = CertificateRefreshState()
        zero.recordFailure(now: 0, jitter: 0)
        #expect(zero.nextRefreshAt == 1)
    }

    @Test("an unknown kid triggers at most one fetch per cooldown")
    func cooldown() {
        var state = CertificateRefreshState()
        let decisions = [100, 100, 104.9, 105, 50].map { state.beginUnknownKeyFetch(now: $0) }
        // at 100 yes; again at 100 and at 104.9 no; at 105 (cooldown over) yes;
        // at 50 (the clock stepped backwards) yes, so a clock jump cannot lock fetching out
        #expect(decisions == [true, false, false, true, true])
    }
}
