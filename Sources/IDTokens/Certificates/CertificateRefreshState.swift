/// The refresh state of one certificate set: pure rules over `now`, no I/O (the store does the fetching).
public struct CertificateRefreshState: Sendable {
    public let policy: CertificateRefreshPolicy
    /// The last set fetched successfully.
    public private(set) var keys: KeySet?
    /// When the last successful fetch happened.
    public private(set) var fetchedAt: Double?
    /// When the set stops being fresh (`.infinity` for a local file).
    public private(set) var expiresAt: Double = -.infinity
    /// When the background loop should fetch next.
    public private(set) var nextRefreshAt: Double = -.infinity
    /// Failed fetches since the last success.
    public private(set) var consecutiveFailures = 0
    private var lastUnknownKeyFetchAt: Double?

    public init(policy: CertificateRefreshPolicy = .init()) {
        self.policy = policy
    }

    /// A fetch succeeded: the set is fresh for `maxAge` (clamped by the policy) and refreshed ahead of expiry.
    public mutating func recordSuccess(keys: KeySet, maxAge: Double?, now: Double) {
        self.keys = keys
        self.fetchedAt = now
        self.consecutiveFailures = 0
        if maxAge == .infinity {
            self.expiresAt = .infinity
            self.nextRefreshAt = .infinity
            return
        }
        let lifetime = min(max(maxAge ?? self.policy.defaultLifetime, self.policy.minimumLifetime), self.policy.maximumLifetime)
        self.expiresAt = now + lifetime
        self.nextRefreshAt = now + lifetime * self.policy.refreshFraction
    }

    /// A fetch failed: keep the set (stale-if-error) and back off exponentially.
    /// - Parameter jitter: a fraction in 0...1 of the backoff to wait (full jitter); 1 waits the whole backoff.
    public mutating func recordFailure(now: Double, jitter: Double = 1) {
        self.consecutiveFailures += 1
        let doublings = Double(1 << min(self.consecutiveFailures - 1, 30))
        let backoff = min(self.policy.initialBackoff * doublings, self.policy.maximumBackoff)
        self.nextRefreshAt = now + max(backoff * min(max(jitter, 0), 1), self.policy.initialBackoff)
    }

    /// The set to verify with: the last good one until `staleIfError` past its expiry, then none.
    public func usableKeys(now: Double) -> KeySet? {
        guard let keys, now < self.expiresAt + self.policy.staleIfError else { return nil }
        return keys
    }

    /// Whether the set is past its freshness lifetime (still usable while within stale-if-error).
    public func isStale(now: Double) -> Bool { now >= self.expiresAt }

    /// Seconds since the last successful fetch, for metrics.
    public func age(now: Double) -> Double? { self.fetchedAt.map { now - $0 } }

    /// A token named a `kid` the set lacks: whether to fetch now. True at most once per cooldown.
    public mutating func beginUnknownKeyFetch(now: Double) -> Bool {
        if let last = self.lastUnknownKeyFetchAt, now - last < self.policy.unknownKeyCooldown, now >= last {
            return false
        }
        self.lastUnknownKeyFetchAt = now
        return true
    }
}
