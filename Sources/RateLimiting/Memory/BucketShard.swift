import Synchronization

/// A lock and the tables behind it: one shard of `InMemoryRateLimitStore`.
final class BucketShard: Sendable {
    private let tables = Mutex<[BucketTable]>([])
    /// Keeps neighbouring shards' locks off one cache line.
    private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0)

    func check(_ limit: RateLimit, key: BucketKey, cost: Double, now: Double) -> RateLimitDecision {
        self.tables.withLock { tables in
            // Few limits exist, so a linear scan beats hashing the name again.
            for index in tables.indices where tables[index].name == limit.name {
                return tables[index].check(limit, key: key, cost: cost, now: now)
            }
            tables.append(BucketTable(limit: limit))
            return tables[tables.count - 1].check(limit, key: key, cost: cost, now: now)
        }
    }

    func tokens(_ limit: RateLimit, key: BucketKey, now: Double) -> Double {
        self.tables.withLock { tables in
            for table in tables where table.name == limit.name {
                return table.buckets[key]?.tokens(limit: limit, now: now) ?? limit.capacity
            }
            return limit.capacity
        }
    }

    var bucketCount: Int {
        self.tables.withLock { tables in tables.reduce(0) { $0 + $1.buckets.count } }
    }

    func sweep(now: Double) -> Int {
        self.tables.withLock { tables in
            var dropped = 0
            for index in tables.indices { dropped += tables[index].sweep(now: now) }
            return dropped
        }
    }
}
