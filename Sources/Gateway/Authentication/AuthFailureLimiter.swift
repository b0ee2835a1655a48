public import RateLimiting

/// A per-client-IP bucket for unauthenticated and failed-auth traffic, so a flood of bad tokens cannot burn CPU
/// on RSA: each failure takes a token, and while an address has none left its token verifications are refused
/// (429) before any RSA work. Cached (already verified) tokens still pass. Kept in memory on each gateway:
/// it guards this process's CPU.
public struct AuthFailureLimiter: Sendable {
    public let limit: RateLimit
    let store: InMemoryRateLimitStore

    public init(limit: RateLimit, store: InMemoryRateLimitStore = InMemoryRateLimitStore()) {
        self.limit = limit
        self.store = store
    }

    /// Refuses when `address` has no failures left (in shadow mode: never).
    func refuseIfExhausted(_ address: String) throws(GatewayError) {
        let tokens = self.store.tokens(self.limit, key: address, now: MonotonicClock.now())
        guard tokens < 1, !self.limit.shadow else { return }
        let retryAfter = max(1, Int(self.limit.secondsToRefill(1 - tokens).rounded(.up)))
        throw GatewayError.rateLimited(limit: self.limit.name, retryAfter: retryAfter)
    }

    func recordFailure(_ address: String) {
        _ = self.store.checkNow(self.limit, key: address, cost: 1, now: MonotonicClock.now())
    }
}
