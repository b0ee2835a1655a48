import Foundation
import Logging
import NIOCore
import NIOPosix
import RateLimiting
import TestSupport
import Testing

@Suite("RedisRateLimitStore against a real redis-server")
struct RedisRateLimitStoreTests {
    @Test func appliesTheSameRulesAsTheBucket() async throws {
        try await withRedisServer { redis async throws in
            try await withRedisStore(redis) { store async throws in
                let limit = RateLimit(name: "story-generation", capacity: 3, period: 3600)
                for expected in [2, 1, 0] {
                    let decision = try await store.check(limit, key: "alice", cost: 1)
                    #expect(decision.allowed)
                    #expect(decision.remaining == expected)
                }
                let refused = try await store.check(limit, key: "alice", cost: 1)
                #expect(!refused.allowed && !refused.shadowLimited)
                #expect(refused.remaining == 0)
                #expect(refused.retryAfter > 1100 && refused.retryAfter <= 1200)  // less the test's own running time
                #expect(refused.secondsToNextToken > 1100 && refused.secondsToNextToken <= 1200)

                // Weights: cost 3 with 2 tokens is refused and consumes nothing.
                _ = try await store.check(limit, key: "bob", cost: 1)
                let heavy = try await store.check(limit, key: "bob", cost: 3)
                #expect(!heavy.allowed)
                #expect(heavy.remaining == 2)
                #expect(heavy.retryAfter > 1100 && heavy.retryAfter <= 1200)
                let fits = try await store.check(limit, key: "bob", cost: 2)
                #expect(fits.allowed && fits.remaining == 0)
            }
        }
    }

    @Test func refillsFractionallyOnRedisTime() async throws {
        try await withRedisServer { redis async throws in
            try await withRedisStore(redis) { store async throws in
                let limit = RateLimit(name: "story-generation", capacity: 10, period: 3600)
                let key = store.redisKey(for: limit, key: "carol")
                // Empty, last refilled 180 s ago by Redis's clock: half a token now.
                try redis.cli("HSET", key, "tokens", "0", "ts", String(try redisTime(redis) - 180))
                let refused = try await store.check(limit, key: "carol", cost: 1)
                #expect(!refused.allowed)
                #expect(refused.remaining == 0)
                // 180 s to go, less however long this test took since reading TIME (loaded machines take seconds).
                #expect(refused.retryAfter <= 180 && refused.retryAfter > 120)
                #expect(refused.secondsToNextToken <= 180 && refused.secondsToNextToken > 120)
                // A refused check writes nothing; the half token is there for a request that costs half.
                #expect(try redis.cli("HGET", key, "tokens") == "0")
                let half = try await store.check(limit, key: "carol", cost: 0.5)
                #expect(half.allowed)
                #expect(half.remaining == 0)
            }
        }
    }

    @Test func shadowModeAllowsFlagsAndFloorsAtZero() async throws {
        try await withRedisServer { redis async throws in
            try await withRedisStore(redis) { store async throws in
                let limit = RateLimit(name: "avatar-generation", capacity: 2, period: 3600, shadow: true)
                #expect(try await !store.check(limit, key: "dave", cost: 1).isOverLimit)
                let over = try await store.check(limit, key: "dave", cost: 3)
                #expect(over.allowed && over.shadowLimited)
                #expect(over.remaining == 0)
                #expect(Double(try redis.cli("HGET", store.redisKey(for: limit, key: "dave"), "tokens")) == 0)
            }
        }
    }

    @Test func concurrentChecksForOneUserAllowExactlyCapacity() async throws {
        try await withRedisServer { redis async throws in
            try await withRedisStore(redis) { store async throws in
                let limit = RateLimit(name: "scene-illustration", capacity: 25, period: 3600)
                let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<1000 {
                        group.addTask { try await store.check(limit, key: "erin", cost: 1).allowed }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(allowed == 25)
            }
        }
    }

    @Test func twoGatewaysShareOneLimit() async throws {
        try await withRedisServer { redis async throws in
            try await withRedisStore(redis) { first async throws in
                try await withRedisStore(redis) { second async throws in
                    let limit = RateLimit(name: "extract-scenes", capacity: 30, period: 3600)
                    let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
                        for index in 0..<400 {
                            let store = index.isMultiple(of: 2) ? first : second
                            group.addTask { try await store.check(limit, key: "frank", cost: 1).allowed }
                        }
                        return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                    }
                    #expect(allowed == 30)
                }
            }
        }
    }

    @Test func usesRedisClockNotTheGateways() async throws {
        try await withRedisServer { redis async throws in
            try await withRedisStore(redis) { store async throws in
                let limit = RateLimit(name: "story-generation", capacity: 10, period: 3600)
                let key = store.redisKey(for: limit, key: "gina")
                // Drained an hour ago by Redis's clock: full now, whatever this process's clock says.
                try redis.cli("HSET", key, "tokens", "0", "ts", String(try redisTime(redis) - 3600))
                #expect(try await store.check(limit, key: "gina", cost: 1).remaining == 9)
                // The stored timestamp is Redis's TIME.
                let stored = try #require(Double(try redis.cli("HGET", key, "ts")))
                #expect(abs(stored - (try redisTime(redis))) < 5)
                // Drained just now by Redis's clock: refused, although a day passes on "our" clock.
                try redis.cli("HSET", key, "tokens", "0", "ts", String(try redisTime(redis)))
                #expect(try await !store.check(limit, key: "gina", cost: 1).allowed)
            }
        }
    }

    @Test func idleKeysExpireWhenFullAgain() async throws {
        try await withRedisServer { redis async throws in
            try await withRedisStore(redis) { store async throws in
                let limit = RateLimit(name: "story-generation", capacity: 10, period: 3600)
                _ = try await store.check(limit, key: "hank", cost: 1)
                let ttl = try #require(Int(try redis.cli("PTTL", store.redisKey(for: limit, key: "hank"))))
                #expect(ttl > 350_000 && ttl <= 360_000)
                _ = try await store.check(limit, key: "hank", cost: 9)
                let drained = try #require(Int(try redis.cli("PTTL", store.redisKey(for: limit, key: "hank"))))
                #expect(drained > 3_590_000 && drained <= 3_600_000)
                // A refused oversized request on a fresh key writes nothing.
                #expect(try await !store.check(limit, key: "ivy", cost: 11).allowed)
                #expect(try redis.cli("EXISTS", store.redisKey(for: limit, key: "ivy")) == "0")
            }
        }
    }

    @Test func reloadsTheScriptAfterNoScript() async throws {
        try await withRedisServer { redis async throws in
            try await withRedisStore(redis) { store async throws in
                let limit = RateLimit(name: "audio-synthesis", capacity: 15, period: 3600)
                #expect(try await store.check(limit, key: "jack", cost: 1).remaining == 14)
                #expect(try redis.cli("SCRIPT", "FLUSH") == "OK")
                #expect(try await store.check(limit, key: "jack", cost: 1).remaining == 13)
                #expect(try await store.check(limit, key: "jack", cost: 1).remaining == 12)
            }
        }
    }

    @Test("checkFuture from an event loop: the decisions check gives; after NOSCRIPT the script is sent again and counted once; from a loop with no connection on it, through check")
    func checkFutureFromEventLoops() async throws {
        try await withRedisServer { redis async throws in
            try await withRedisStore(redis) { store async throws in
                let limit = RateLimit(name: "story-generation", capacity: 4, period: 3600)
                let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
                let other = MultiThreadedEventLoopGroup(numberOfThreads: 1)
                let check = { (loop: any EventLoop) async throws -> RateLimitDecision in
                    try await loop.flatSubmit { store.checkFuture(limit, key: "kate", cost: 1, on: loop) }.get()
                }
                #expect(try await check(loops[0]).remaining == 3)
                #expect(try redis.cli("SCRIPT", "FLUSH") == "OK")
                #expect(try await check(loops[loops.count - 1]).remaining == 2)
                #expect(try await check(other.next()).remaining == 1)
                #expect(try await check(loops[0]).remaining == 0)
                #expect(try await check(loops[0]).allowed == false)
                try await other.shutdownGracefully()
            }
        }
    }

    @Test func rejectsBadConfiguration() {
        #expect(throws: RateLimitStoreError.invalidConfiguration) {
            try RedisRateLimitStore(configuration: .init(url: "http://localhost"), logger: Logger(label: "test"))
        }
        var zeroPool = RedisRateLimitStore.Configuration(url: "redis://127.0.0.1")
        zeroPool.poolSize = 0
        #expect(throws: RateLimitStoreError.invalidConfiguration) {
            try RedisRateLimitStore(configuration: zeroPool, logger: Logger(label: "test"))
        }
    }
}

@Suite("RedisRateLimitStore connections: AUTH, SELECT, replaced connections")
struct RedisConnectionTests {
    let limit = RateLimit(name: "story-generation", capacity: 10, period: 3600)

    @Test func authenticatesAndSelectsTheDatabaseFromTheURL() async throws {
        try await withRedisServer(arguments: ["--requirepass", "s3cret"]) { redis async throws in
            let url = "redis://:s3cret@127.0.0.1:\(redis.port)/3"
            try await withRedisStore(redis, configure: { $0.url = url }) { store async throws in
                #expect(try await store.check(limit, key: "pat", cost: 1).remaining == 9)
                #expect(try redis.cli(database: 3, arguments: ["EXISTS", store.redisKey(for: limit, key: "pat")]) == "1")
                #expect(try redis.cli(database: 0, arguments: ["EXISTS", store.redisKey(for: limit, key: "pat")]) == "0")
            }
        }
    }

    @Test func wrongPasswordFailsChecksWithoutHanging() async throws {
        try await withRedisServer(arguments: ["--requirepass", "s3cret"]) { redis async throws in
            var configuration = RedisRateLimitStore.Configuration(url: "redis://:wrong@127.0.0.1:\(redis.port)")
            configuration.timeout = .milliseconds(500)
            let store = try RedisRateLimitStore(configuration: configuration, logger: Logger(label: "test"))
            try await withThrowingTaskGroup(of: Void.self) { group async throws in
                group.addTask { try await store.run() }
                defer { group.cancelAll() }
                for _ in 0..<3 {
                    await #expect(throws: RateLimitStoreError.self) { try await store.check(limit, key: "quinn", cost: 1) }
                }
                #expect(store.liveConnectionCount == 0)
            }
        }
    }

    @Test func connectionsKilledByTheServerAreReplacedAndNoCheckCountsTwice() async throws {
        try await withRedisServer { redis async throws in
            try await withRedisStore(redis) { store async throws in
                #expect(try await store.check(limit, key: "rae", cost: 1).remaining == 9)
                var successes = 1
                for _ in 0..<3 {
                    try redis.cli("CLIENT", "KILL", "TYPE", "normal")
                    _ = try await RedisOutageTests.firstSuccess(within: .seconds(2)) { try await store.check(limit, key: "rae", cost: 1) }
                    successes += 1
                }
                // Every token taken in Redis belongs to a check that reported success.
                let tokens = try #require(Double(try redis.cli("HGET", store.redisKey(for: limit, key: "rae"), "tokens")))
                #expect(abs(tokens - Double(10 - successes)) < 0.05)  // refill while the test runs is ~0.003 per second; a double count is 1
            }
        }
    }
}
