import Foundation
import Logging
import RateLimiting
import TestSupport
import Testing

/// Where a contract test runs: in process, on one redis-server, or on a three-primary Redis Cluster.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory
    case redis
    case cluster

    var testDescription: String { self.rawValue }
}

/// One redis-server and one three-primary Redis Cluster for a whole suite, started before its tests and stopped
/// after: a cluster per test would cost seconds each on a small machine. Tests keep apart by their keys (a user
/// hash and a queue name of their own), so they still run in parallel.
struct SharedRedis: SuiteTrait, TestScoping {
    struct Servers: Sendable {
        let server: RedisServer
        let cluster: RedisClusterServer
    }

    @TaskLocal static var servers: Servers?

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await withRedisServer { server in
            try await withRedisCluster { cluster in
                try await Self.$servers.withValue(Servers(server: server, cluster: cluster)) {
                    try await function()
                }
            }
        }
    }

    /// The suite's servers (a test outside a `.sharedRedis` suite has none).
    static func current() throws -> Servers {
        try #require(Self.servers, "the suite needs the .sharedRedis trait")
    }
}

extension Trait where Self == SharedRedis {
    /// Runs the suite beside one redis-server and one Redis Cluster of its own.
    static var sharedRedis: Self { SharedRedis() }
}

/// Runs `replicas` gateway replicas' Redis clients against the suite's server (or cluster): each a
/// `RedisRateLimitStore` with pools of its own, running as its service would, connected before `body` starts.
func withRedisCommands<T: Sendable>(
    _ backend: Backend, replicas: Int, _ body: @Sendable ([RedisCommands]) async throws -> T
) async throws -> T {
    precondition(backend != .memory, "the memory backend has no Redis")
    let servers = try SharedRedis.current()
    var stores: [RedisRateLimitStore] = []
    for _ in 0..<replicas {
        var configuration = RedisRateLimitStore.Configuration(url: backend == .cluster ? servers.cluster.url : servers.server.url)
        configuration.cluster = backend == .cluster
        configuration.poolSize = 2
        // Generous: tests run in parallel on a small machine.
        configuration.timeout = .seconds(2)
        stores.append(try RedisRateLimitStore(configuration: configuration, logger: Logger(label: "test.generations.redis")))
    }
    let expected = backend == .cluster ? 3 * 2 : 2
    return try await withThrowingTaskGroup(of: Void.self) { group in
        for store in stores {
            group.addTask { try await store.run() }
        }
        defer { group.cancelAll() }
        let deadline = ContinuousClock.now + .seconds(10)
        while stores.contains(where: { $0.liveConnectionCount < expected }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        return try await body(stores.map(\.commands))
    }
}

/// A name no other test uses (a queue, an owner), with no braces.
func uniqueName(_ prefix: String) -> String {
    "\(prefix)-\(UUID().uuidString.lowercased())"
}

/// The wall clock, seconds since 1970.
@Sendable func wallClock() -> Double {
    Date().timeIntervalSince1970
}

/// Polls `condition` every 20 ms until it holds or `limit` passes; whether it held. For an outcome that comes after a
/// lease lapses or a poll: no test asserts how long it took.
func eventually(within limit: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
