import Foundation
import Logging
import RateLimiting
import TestSupport

/// Runs a `RedisRateLimitStore` against `redis` as its service would run, for the body's duration.
///
/// The check timeout is generous by default (2 s) because tests run in parallel on a small machine; tests of
/// timeouts set their own.
func withRedisStore<T: Sendable>(
    _ redis: RedisServer,
    configure: (inout RedisRateLimitStore.Configuration) -> Void = { _ in },
    _ body: @Sendable (RedisRateLimitStore) async throws -> T
) async throws -> T {
    var configuration = RedisRateLimitStore.Configuration(url: redis.url)
    configuration.timeout = .seconds(2)
    configure(&configuration)
    let store = try RedisRateLimitStore(configuration: configuration, logger: Logger(label: "test.ratelimit"))
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await store.run() }
        defer { group.cancelAll() }
        // Tests start from a connected pool, so their timeouts measure checks, not the first connect.
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while store.liveConnectionCount == 0 && clock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        return try await body(store)
    }
}

/// Redis's clock (`TIME`) in seconds.
func redisTime(_ redis: RedisServer) throws -> Double {
    let parts = try redis.cli("TIME").split(whereSeparator: \.isNewline).compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    precondition(parts.count == 2, "unexpected TIME reply")
    return parts[0] + parts[1] / 1_000_000
}
