import RateLimiting

@testable import Generations

/// `replicas` idempotency stores that share their records, as gateway replicas do: for the memory backend one store
/// seen `replicas` times (one process), for Redis one `RedisIdempotencyStore` per replica's Redis client.
func withIdempotencyStores(
    _ backend: Backend, replicas: Int = 1, configure: @Sendable (inout RedisIdempotencyStore.Configuration) -> Void = { _ in },
    _ body: @Sendable ([any IdempotencyStore]) async throws -> Void
) async throws {
    guard backend != .memory else {
        let store = InMemoryIdempotencyStore(now: wallClock)
        try await body(Array(repeating: store, count: replicas))
        return
    }
    try await withRedisCommands(backend, replicas: replicas) { commands in
        var configuration = RedisIdempotencyStore.Configuration()
        configure(&configuration)
        try await body(commands.map { RedisIdempotencyStore(commands: $0, configuration: configuration) })
    }
}

/// `replicas` job queues that share their jobs, as `withIdempotencyStores` does; the Redis ones on a queue of this
/// test's own.
func withJobQueues(
    _ backend: Backend, replicas: Int = 1, retention: Duration = .seconds(3600),
    configure: @Sendable (inout RedisJobQueue.Configuration) -> Void = { _ in },
    _ body: @Sendable ([any JobQueue]) async throws -> Void
) async throws {
    guard backend != .memory else {
        let queue = InMemoryJobQueue(retention: retention.seconds, now: wallClock)
        try await body(Array(repeating: queue, count: replicas))
        return
    }
    try await withRedisCommands(backend, replicas: replicas) { commands in
        var configuration = RedisJobQueue.Configuration(retention: retention)
        configuration.queue = uniqueName("queue")
        configure(&configuration)
        try await body(commands.map { RedisJobQueue(commands: $0, configuration: configuration) })
    }
}
