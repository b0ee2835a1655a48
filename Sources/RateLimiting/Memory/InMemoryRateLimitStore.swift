/// Buckets in this process: the embedded default for a single gateway.
///
/// Keys are spread over `shardCount` shards, each a `Mutex` around per-limit dictionaries, so a check is O(1)
/// under one shard's lock and never a global one. Keys are held as 128-bit keyed fingerprints (`BucketKey`),
/// 16 bytes inline, not as Strings. Memory stays bounded: buckets that would be full again are
/// dropped by `sweep(now:)` and, opportunistically, by a table when it has grown by half since its last sweep.
public final class InMemoryRateLimitStore: RateLimitStore, Sendable {
    private let shards: [BucketShard]
    private let shardShift: Int
    private let now: @Sendable () -> Double

    /// - Parameters:
    ///   - shardCount: number of independently locked shards, rounded up to a power of two; default 64.
    ///   - now: the clock, in seconds; by default the monotonic clock (immune to wall-clock steps).
    public init(shardCount: Int = 64, now: @escaping @Sendable () -> Double = { MonotonicClock.now() }) {
        precondition(shardCount > 0, "shardCount must be positive")
        var bits = 0
        while (1 << bits) < shardCount { bits += 1 }
        self.shards = (0..<(1 << bits)).map { _ in BucketShard() }
        self.shardShift = 64 - bits
        self.now = now
    }

    /// `checkNow` at the store's clock; never throws.
    public func check(_ limit: RateLimit, key: String, cost: Double) async throws(RateLimitStoreError) -> RateLimitDecision {
        self.checkNow(limit, key: key, cost: cost, now: self.now())
    }

    /// `checkNow` at the store's clock.
    public func checkWithoutWaiting(_ limit: RateLimit, key: String, cost: Double) -> RateLimitDecision? {
        self.checkNow(limit, key: key, cost: cost, now: self.now())
    }

    public var decidesWithoutWaiting: Bool { true }

    /// The synchronous hot path (no suspension): the async `check` calls it with the store's clock.
    public func checkNow(_ limit: RateLimit, key: String, cost: Double, now: Double) -> RateLimitDecision {
        let bucketKey = BucketKey(key)
        return self.shard(for: bucketKey).check(limit, key: bucketKey, cost: cost, now: now)
    }

    /// Buckets currently held, over all shards (takes each shard's lock in turn).
    /// The tokens `key` has now, without taking any (a missing bucket is full). Creates nothing.
    public func tokens(_ limit: RateLimit, key: String, now: Double) -> Double {
        let bucketKey = BucketKey(key)
        return self.shard(for: bucketKey).tokens(limit, key: bucketKey, now: now)
    }

    public var bucketCount: Int {
        self.shards.reduce(0) { $0 + $1.bucketCount }
    }

    /// Drops buckets that are full again (idle); call periodically. Returns how many were dropped.
    public func sweep(now: Double) -> Int {
        self.shards.reduce(0) { $0 + $1.sweep(now: now) }
    }

    /// Drops idle buckets at the store's own clock.
    public func sweep() -> Int { self.sweep(now: self.now()) }

    private func shard(for key: BucketKey) -> BucketShard {
        guard self.shardShift < 64 else { return self.shards[0] }
        // The fingerprint's high half picks the shard; the dictionaries hash the low half.
        return self.shards[Int(truncatingIfNeeded: key.high >> UInt64(self.shardShift))]
    }
}
