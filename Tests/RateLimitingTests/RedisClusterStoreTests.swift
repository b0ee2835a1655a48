import Foundation
import Logging
import TestSupport
import Testing

@testable import RateLimiting

/// `RedisRateLimitStore` in cluster mode against a real three-primary Redis Cluster (Debian's `redis-server`).
/// One cluster at a time: each is three servers, and the other Redis suites run beside them on a small machine.
@Suite("RedisRateLimitStore against a real Redis Cluster", .serialized)
struct RedisClusterStoreTests {
    @Test("the slot function agrees with CLUSTER KEYSLOT, hash tags included")
    func slotsAgreeWithRedis() async throws {
        try await withRedisCluster { cluster async throws in
            var keys = ["123456789", "somekey", "foo{hash_tag}", "foo{{bar}}zap", "foo{}{bar}", "{ü}x", ""]
            keys += (0..<100).map { "storygate:rl:story-generation:{\(RedisRateLimitStore.defaultKeyHash("user-\($0)"))}" }
            for key in keys where !key.isEmpty {
                #expect(try ClusterKeySlot.slot(of: key) == cluster.slot(of: key), "\(key)")
            }
        }
    }

    @Test("one limit, shared and exact across two stores seeded with different nodes")
    func sharedAndExact() async throws {
        try await withRedisCluster { cluster async throws in
            let first = "redis://127.0.0.1:\(cluster.nodes[0].port)"
            let last = "redis://127.0.0.1:\(cluster.nodes[2].port)"
            try await withClusterStore(cluster, configure: { $0.url = first }) { a async throws in
                try await withClusterStore(cluster, configure: { $0.url = last }) { b async throws in
                    #expect(a.clusterTopology?.nodes.count == 3 && b.clusterTopology?.nodes.count == 3)
                    let limit = RateLimit(name: "story-generation", capacity: 10, period: 3600)
                    for user in ["ann", "ben", "cat"] {
                        let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
                            for index in 0..<30 {
                                let store = index.isMultiple(of: 2) ? a : b
                                group.addTask { try await store.check(limit, key: user, cost: 1).allowed }
                            }
                            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                        }
                        #expect(allowed == 10, "\(user)")
                        #expect(try await !a.check(limit, key: user, cost: 1).allowed)
                    }
                }
            }
        }
    }

    @Test("the keys of 1,000 users spread over all three primaries, with no raw uid in them")
    func keysSpreadOverPrimaries() async throws {
        try await withRedisCluster { cluster async throws in
            try await withClusterStore(cluster) { store async throws in
                let limit = RateLimit(name: "story-generation", capacity: 100, period: 3600)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for batch in 0..<20 {
                        group.addTask {
                            for user in (batch * 50)..<(batch * 50 + 50) {
                                let decision = try await store.check(limit, key: "user-\(user)", cost: 1)
                                #expect(decision.allowed)
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                let counts = try cluster.nodes.map { node in try #require(Int(node.cli("DBSIZE"))) }
                #expect(counts.reduce(0, +) == 1000)
                // About a third each (a binomial spread: 333 ± 15); every primary holds a share.
                for count in counts { #expect(count > 200, "\(counts)") }
                for node in cluster.nodes {
                    #expect(try !node.cli("KEYS", "*").contains("user-"))
                }
            }
        }
    }

    @Test("a slot migrated to another primary: MOVED is followed, the map updated, the count stays exact")
    func followsMoved() async throws {
        try await withRedisCluster { cluster async throws in
            try await withClusterStore(cluster) { store async throws in
                let limit = RateLimit(name: "story-generation", capacity: 3, period: 3600)
                let key = store.redisKey(for: limit, key: "mover")
                let slot = try cluster.slot(of: key)
                let source = try cluster.owner(of: slot)
                let target = try #require(cluster.nodes.first { $0 !== source })
                #expect(try await store.check(limit, key: "mover", cost: 1).remaining == 2)

                try cluster.migrate(slot: slot, from: source, to: target)
                #expect(try target.cli("EXISTS", key) == "1")
                #expect(try source.cli("CLUSTER", "COUNTKEYSINSLOT", String(slot)) == "0")
                // The store's map still names the source: it answers MOVED, and the check goes to the target.
                #expect(store.clusterTopology?.owner(of: slot)?.port == source.port)
                #expect(try await store.check(limit, key: "mover", cost: 1).remaining == 1)
                #expect(store.clusterTopology?.owner(of: slot)?.port == target.port)
                #expect(try await store.check(limit, key: "mover", cost: 1).remaining == 0)
                #expect(try await !store.check(limit, key: "mover", cost: 1).allowed)
                #expect(try Double(target.cli("HGET", key, "tokens")) ?? 1 < 0.01)
            }
        }
    }

    @Test("a slot in migration, its key already moved: ASK is followed with ASKING, the map kept, the count exact")
    func followsAsk() async throws {
        try await withRedisCluster { cluster async throws in
            try await withClusterStore(cluster) { store async throws in
                let limit = RateLimit(name: "story-generation", capacity: 3, period: 3600)
                let key = store.redisKey(for: limit, key: "asker")
                let slot = try cluster.slot(of: key)
                let source = try cluster.owner(of: slot)
                let target = try #require(cluster.nodes.first { $0 !== source })
                #expect(try await store.check(limit, key: "asker", cost: 1).remaining == 2)

                try cluster.beginMigration(slot: slot, from: source, to: target)
                #expect(try target.cli("CLUSTER", "COUNTKEYSINSLOT", String(slot)) == "1")
                // The source no longer has the key: ASK, then ASKING and the script on the target.
                #expect(try await store.check(limit, key: "asker", cost: 1).remaining == 1)
                #expect(store.clusterTopology?.owner(of: slot)?.port == source.port)
                #expect(try source.cli("CLUSTER", "COUNTKEYSINSLOT", String(slot)) == "0")
                #expect(try await store.check(limit, key: "asker", cost: 1).remaining == 0)
                #expect(try await !store.check(limit, key: "asker", cost: 1).allowed)

                // The migration ends: MOVED from then on, and still exact.
                try cluster.finishMigration(slot: slot, from: source, to: target)
                #expect(try await !store.check(limit, key: "asker", cost: 1).allowed)
                #expect(store.clusterTopology?.owner(of: slot)?.port == target.port)
            }
        }
    }

    @Test("a primary down: its users' checks fail at once (the failure policy applies), failing open to local buckets")
    func primaryDown() async throws {
        try await withRedisCluster { cluster async throws in
            try await withClusterStore(cluster, configure: { $0.timeout = .seconds(2) }) { store async throws in
                let limit = RateLimit(name: "story-generation", capacity: 3, period: 3600)
                let key = store.redisKey(for: limit, key: "orphan")
                let owner = try cluster.owner(of: try cluster.slot(of: key))
                #expect(try await store.check(limit, key: "orphan", cost: 1).remaining == 2)
                owner.kill()
                do throws(RateLimitStoreError) {
                    _ = try await store.check(limit, key: "orphan", cost: 1)
                    Issue.record("a check succeeded with its primary down")
                } catch {
                    #expect(error == .unavailable || error == .timeout)
                }
                let failover = FailoverRateLimitStore(
                    primary: store, fallback: InMemoryRateLimitStore(), policy: .failOpen, logger: Logger(label: "test.failover")
                )
                #expect(try await failover.check(limit, key: "orphan", cost: 1).remaining == 2)
                #expect(failover.fallbackCount == 1)
            }
        }
    }
}

/// Runs a cluster-mode `RedisRateLimitStore` seeded with every node of `cluster`, for the body's duration, from the
/// moment every primary has its pool connected.
func withClusterStore<T: Sendable>(
    _ cluster: RedisClusterServer,
    configure: (inout RedisRateLimitStore.Configuration) -> Void = { _ in },
    _ body: @Sendable (RedisRateLimitStore) async throws -> T
) async throws -> T {
    var configuration = RedisRateLimitStore.Configuration(url: cluster.url)
    configuration.cluster = true
    configuration.poolSize = 2
    configuration.timeout = .seconds(2)
    configure(&configuration)
    let store = try RedisRateLimitStore(configuration: configuration, logger: Logger(label: "test.ratelimit.cluster"))
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await store.run() }
        defer { group.cancelAll() }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while store.liveConnectionCount < 3 * configuration.poolSize && clock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        return try await body(store)
    }
}
