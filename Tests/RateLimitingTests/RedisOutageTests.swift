import Foundation
import Logging
import RateLimiting
import TestSupport
import Testing

@Suite("Redis down, slow or restarted")
struct RedisOutageTests {
    let limit = RateLimit(name: "story-generation", capacity: 10, period: 3600)

    /// The timeout is long here on purpose: a dead Redis must fail checks at once (refused), not by timing out.
    /// (A check that times out may still have run in Redis, so the recovery assertions need no timeouts.)
    @Test func killedRedisFailsFastThenRecoversAfterRestart() async throws {
        try await withRedisServer { redis async throws in
            try await withRedisStore(redis, configure: { $0.timeout = .seconds(2) }) { store async throws in
                #expect(try await store.check(limit, key: "kim", cost: 1).remaining == 9)

                redis.kill()
                // Checks fail (normally at once as `.unavailable`; on a loaded machine a check may instead wait out the
                // 2 s timeout while a reconnect is under way) and never hang.
                for _ in 0..<20 {
                    do throws(RateLimitStoreError) {
                        _ = try await store.check(limit, key: "kim", cost: 1)
                        Issue.record("a check succeeded with Redis down")
                    } catch {
                        #expect(error == .unavailable || error == .timeout)
                    }
                }

                try await redis.restart()
                // Redis restarted empty: within 2 s, checks reach it again (a fresh, full bucket).
                let decision = try await Self.firstSuccess(within: .seconds(2)) { try await store.check(limit, key: "kim", cost: 1) }
                #expect(decision.remaining == 9)
                #expect(try redis.cli("EXISTS", store.redisKey(for: limit, key: "kim")) == "1")
            }
        }
    }

    @Test func failoverFailsOpenToTheLocalBucket() async throws {
        try await withRedisServer { redis async throws in
            try await withRedisStore(redis, configure: { $0.timeout = .seconds(2) }) { redisStore async throws in
                let fallback = InMemoryRateLimitStore()
                let store = FailoverRateLimitStore(primary: redisStore, fallback: fallback, policy: .failOpen, logger: Logger(label: "test"))
                #expect(try await store.check(limit, key: "lee", cost: 1).remaining == 9)
                #expect(store.fallbackCount == 0)

                redis.kill()
                for expected in (0..<10).reversed() {
                    let decision = try await store.check(limit, key: "lee", cost: 1)
                    #expect(decision.allowed)
                    #expect(decision.remaining == expected)
                }
                #expect(try await !store.check(limit, key: "lee", cost: 1).allowed)
                #expect(store.fallbackCount == 11)
                #expect(store.failureCount == 11)

                try await redis.restart()
                let decision = try await RedisOutageTests.firstSuccess(within: .seconds(2)) {
                    let before = store.fallbackCount
                    let decision = try await store.check(limit, key: "lee", cost: 1)
                    guard store.fallbackCount == before else { throw RateLimitStoreError.unavailable }
                    return decision
                }
                #expect(decision.remaining == 9)
            }
        }
    }

    @Test func failoverFailsClosedWhenConfigured() async throws {
        try await withRedisServer { redis async throws in
            try await withRedisStore(redis, configure: { $0.timeout = .seconds(2) }) { redisStore async throws in
                let store = FailoverRateLimitStore(primary: redisStore, fallback: InMemoryRateLimitStore(), policy: .failClosed, logger: Logger(label: "test"))
                #expect(try await store.check(limit, key: "max", cost: 1).allowed)
                redis.kill()
                await #expect(throws: RateLimitStoreError.self) { try await store.check(limit, key: "max", cost: 1) }
                #expect(store.fallbackCount == 0)
                #expect(store.failureCount == 1)
            }
        }
    }

    @Test func stalledRedisTimesOutWithoutHanging() async throws {
        try await withRedisServer { redis async throws in
            try await withRedisStore(redis, configure: { $0.timeout = .milliseconds(250) }) { store async throws in
                // DEBUG SLEEP blocks Redis for 2 s: checks meanwhile time out, and later ones succeed again.
                try redis.cliInBackground("DEBUG", "SLEEP", "2")
                let clock = ContinuousClock()
                let giveUp = clock.now + .seconds(3)
                var timedOut = false
                while !timedOut && clock.now < giveUp {
                    do {
                        _ = try await store.check(limit, key: "ned", cost: 1)
                        try await Task.sleep(for: .milliseconds(20))
                    } catch let error as RateLimitStoreError {
                        #expect(error == .timeout)
                        timedOut = true
                    }
                }
                #expect(timedOut)
                let decision = try await Self.firstSuccess(within: .seconds(4)) { try await store.check(limit, key: "ned", cost: 1) }
                #expect(decision.allowed)
            }
        }
    }

    @Test func storeWithNoServerFailsFast() async throws {
        let redis = try await RedisServer.start()
        let url = redis.url
        redis.stop()
        var configuration = RedisRateLimitStore.Configuration(url: url)
        configuration.timeout = .milliseconds(200)
        let store = try RedisRateLimitStore(configuration: configuration, logger: Logger(label: "test"))
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await store.run() }
            for _ in 0..<5 {
                await #expect(throws: RateLimitStoreError.self) { try await store.check(limit, key: "oz", cost: 1) }
            }
            group.cancelAll()
        }
        await #expect(throws: RateLimitStoreError.shutdown) { try await store.check(limit, key: "oz", cost: 1) }
    }

    /// Polls `body` (bounded by `limit`, 20 ms apart) until it succeeds; rethrows the last error at the deadline.
    static func firstSuccess<T>(within limit: Duration, _ body: () async throws -> T) async throws -> T {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while true {
            do {
                return try await body()
            } catch {
                if clock.now >= deadline { throw error }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }
}
