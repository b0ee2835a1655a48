@testable import GoogleAuth
import Testing

/// The cache, refresh and backoff rules, driven directly: no server, no clock.
@Suite struct AccessTokenRefreshStateTests {
    @Test func fetchesFirstThenUsesTheTokenUntilTheRefreshMargin() {
        var state = AccessTokenRefreshState()
        #expect(state.decide(now: 100) == .fetch)
        state.succeeded(value: "a", expiresIn: 3600, fetchedAt: 100)
        #expect(state.decide(now: 100 + 3299) == .use("a"))
        #expect(state.decide(now: 100 + 3300) == .fetch)  // 300 s before expiry
        #expect(state.validToken(now: 100 + 3599) == "a")
        #expect(state.validToken(now: 100 + 3600) == nil)
    }

    @Test func aShortLivedTokenIsRefreshedAtHalfItsLifetime() {
        var state = AccessTokenRefreshState()
        state.succeeded(value: "a", expiresIn: 100, fetchedAt: 0)
        #expect(state.decide(now: 49) == .use("a"))
        #expect(state.decide(now: 50) == .fetch)
    }

    @Test func failuresBackOffDoublingToTheMaximum() {
        var state = AccessTokenRefreshState()
        var now: Double = 0
        var waits: [Double] = []
        for _ in 0..<9 {
            state.failed(.endpointRefused, now: now)
            #expect(state.decide(now: now) == .fail(.endpointRefused))
            waits.append(state.retryAt - now)
            now = state.retryAt
            #expect(state.decide(now: now) == .fetch)
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 60, 60, 60])
        state.succeeded(value: "b", expiresIn: 3600, fetchedAt: now)
        #expect(state.consecutiveFailures == 0)
        #expect(state.decide(now: now) == .use("b"))
    }

    @Test func duringBackoffAStillValidTokenIsUsed() {
        var state = AccessTokenRefreshState()
        state.succeeded(value: "a", expiresIn: 600, fetchedAt: 0)
        state.failed(.endpointUnreachable, now: 400)
        #expect(state.decide(now: 400.5) == .use("a"))
        #expect(state.decide(now: 401) == .fetch)
        state.failed(.endpointUnreachable, now: 599.5)
        #expect(state.decide(now: 600) == .fail(.endpointUnreachable))  // expired meanwhile
    }
}
