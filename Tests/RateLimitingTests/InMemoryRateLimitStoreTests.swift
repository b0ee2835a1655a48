import RateLimiting
import Synchronization
import Testing

@Suite("InMemoryRateLimitStore")
struct InMemoryRateLimitStoreTests {
    let limit = RateLimit(name: "story-generation", capacity: 10, period: 3600)

    @Test func concurrentChecksForOneUserAllowExactlyCapacity() async {
        let store = InMemoryRateLimitStore(now: { 5000 })
        let allowed = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<1000 {
                group.addTask { try! await store.check(limit, key: "uid-1", cost: 1).allowed }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(allowed == 10)
    }

    @Test func usersAndLimitsAreIndependent() {
        let store = InMemoryRateLimitStore()
        let other = RateLimit(name: "audio-synthesis", capacity: 2, period: 60)
        for _ in 0..<10 { #expect(store.checkNow(limit, key: "alice", cost: 1, now: 0).allowed) }
        #expect(!store.checkNow(limit, key: "alice", cost: 1, now: 0).allowed)
        #expect(store.checkNow(limit, key: "bob", cost: 1, now: 0).allowed)
        #expect(store.checkNow(other, key: "alice", cost: 1, now: 0).allowed)
        #expect(store.checkNow(other, key: "alice", cost: 1, now: 0).allowed)
        #expect(!store.checkNow(other, key: "alice", cost: 1, now: 0).allowed)
        #expect(store.bucketCount == 3)
    }

    /// Uids are byte strings (as Redis keys are): two that Swift's `String` equality calls equal, "é" as one scalar
    /// and as e + U+0301, are two users with two buckets.
    @Test func canonicallyEquivalentUidsAreDistinctUsers() {
        let store = InMemoryRateLimitStore()
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed)
        for _ in 0..<10 { #expect(store.checkNow(limit, key: composed, cost: 1, now: 0).allowed) }
        #expect(!store.checkNow(limit, key: composed, cost: 1, now: 0).allowed)
        #expect(store.checkNow(limit, key: decomposed, cost: 1, now: 0).allowed)
        #expect(store.bucketCount == 2)
    }

    @Test func followsTheBucketRulesOverTime() {
        let store = InMemoryRateLimitStore(shardCount: 1)
        for _ in 0..<10 { _ = store.checkNow(limit, key: "u", cost: 1, now: 0) }
        let refused = store.checkNow(limit, key: "u", cost: 1, now: 180)
        #expect(!refused.allowed)
        #expect(refused.retryAfter == 180)
        #expect(store.checkNow(limit, key: "u", cost: 1, now: 360).allowed)
    }

    @Test func refusedOversizedCostKeepsNoBucket() {
        let store = InMemoryRateLimitStore()
        #expect(!store.checkNow(limit, key: "u", cost: 11, now: 0).allowed)
        #expect(store.bucketCount == 0)
    }

    @Test func sweepDropsOnlyFullBuckets() {
        let store = InMemoryRateLimitStore(shardCount: 4)
        _ = store.checkNow(limit, key: "early", cost: 1, now: 0)      // full again at 360
        _ = store.checkNow(limit, key: "drained", cost: 10, now: 0)   // full again at 3600
        _ = store.checkNow(limit, key: "late", cost: 1, now: 300)     // full again at 660
        #expect(store.bucketCount == 3)
        #expect(store.sweep(now: 359) == 0)
        #expect(store.sweep(now: 360) == 1)
        #expect(store.bucketCount == 2)
        #expect(store.sweep(now: 660) == 1)
        #expect(store.sweep(now: 3599) == 0)
        #expect(store.sweep(now: 3600) == 1)
        #expect(store.bucketCount == 0)
        // A dropped bucket comes back full.
        #expect(store.checkNow(limit, key: "drained", cost: 10, now: 3600).allowed)
    }

    @Test func growingShardSweepsIdleBucketsByItself() {
        let store = InMemoryRateLimitStore(shardCount: 1)
        let fast = RateLimit(name: "fast", capacity: 1, period: 1)
        for index in 0..<10_000 {
            // Each user's bucket is full again one second after its only request.
            _ = store.checkNow(fast, key: "user-\(index)", cost: 1, now: Double(index))
        }
        #expect(store.bucketCount < 1_000)
    }

    @Test func storeClockIsUsedByCheck() async throws {
        let clock = Mutex<Double>(0)
        let store = InMemoryRateLimitStore(now: { clock.withLock { $0 } })
        for _ in 0..<10 { _ = try await store.check(limit, key: "u", cost: 1) }
        #expect(try await !store.check(limit, key: "u", cost: 1).allowed)
        clock.withLock { $0 = 360 }
        #expect(try await store.check(limit, key: "u", cost: 1).allowed)
    }
}
