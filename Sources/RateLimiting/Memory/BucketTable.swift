/// One limit's buckets within one shard, keyed by the caller's key's fingerprint (no per-check string building).
struct BucketTable {
    /// The limit's name; compared with `==`, which is a pointer check when the caller passes the same `RateLimit`.
    let name: String
    /// The most recent capacity and period seen for this limit, used to decide which buckets are full when sweeping.
    var capacity: Double
    var period: Double
    var buckets: [BucketKey: TokenBucket] = [:]
    /// Buckets added since the last sweep; a sweep runs when it reaches half the table (amortised O(1) per insert).
    var insertsSinceSweep = 0

    init(limit: RateLimit) {
        self.name = limit.name
        self.capacity = limit.capacity
        self.period = limit.period
    }

    static let minimumInsertsBetweenSweeps = 256

    mutating func check(_ limit: RateLimit, key: BucketKey, cost: Double, now: Double) -> RateLimitDecision {
        if self.capacity != limit.capacity || self.period != limit.period {
            self.capacity = limit.capacity
            self.period = limit.period
        }
        if let index = self.buckets.index(forKey: key) {
            return self.buckets.values[index].take(cost, limit: limit, now: now)
        }
        var bucket = TokenBucket(full: limit, now: now)
        let decision = bucket.take(cost, limit: limit, now: now)
        // A bucket that is still full (a refused oversized cost) carries no state worth keeping.
        guard !bucket.isFull(limit: limit, now: now) else { return decision }
        self.buckets[key] = bucket
        self.insertsSinceSweep += 1
        if self.insertsSinceSweep >= max(Self.minimumInsertsBetweenSweeps, self.buckets.count / 2) {
            _ = self.sweep(now: now)
        }
        return decision
    }

    /// Drops the buckets that are full again at `now`; returns how many.
    mutating func sweep(now: Double) -> Int {
        self.insertsSinceSweep = 0
        let limit = RateLimit(name: self.name, capacity: self.capacity, period: self.period)
        var full: [BucketKey] = []
        for (key, bucket) in self.buckets where bucket.isFull(limit: limit, now: now) {
            full.append(key)
        }
        if full.count > self.buckets.count / 4 {
            // Rebuilding returns the memory of a table that shrank a lot.
            self.buckets = self.buckets.filter { !$0.value.isFull(limit: limit, now: now) }
        } else {
            for key in full { self.buckets.removeValue(forKey: key) }
        }
        return full.count
    }
}
