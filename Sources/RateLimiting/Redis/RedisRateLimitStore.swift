public import Logging
public import NIOCore
public import NIOPosix
public import ServiceLifecycle

/// Buckets in Redis, shared by every gateway replica, so a limit is one limit for the fleet.
///
/// Each check is one `EVALSHA` of `TokenBucketScript`, which applies `TokenBucket`'s rules atomically with
/// Redis's clock (gateways' clocks may drift). Commands are pipelined over a small pool of RESP connections on
/// SwiftNIO. A check fails with a `RateLimitStoreError` within `timeout`: it never hangs on a slow or dead Redis.
///
/// Run it as a `Service`: `run()` keeps the pool connected until graceful shutdown, then closes it. Until `run()`
/// has started, checks fail (with `.timeout` or `.unavailable`).
public final class RedisRateLimitStore: RateLimitStore, Service, Sendable {
    /// Every key, its type and its default.
    public struct Configuration: Sendable {
        /// `redis://[[user]:password@]host[:port][/db]`; port 6379 and database 0 by default.
        public var url: String
        /// Connections in the pool, used round robin. Default 4.
        public var poolSize = 4
        /// How long one check may take, connection wait included. Default 50 ms.
        public var timeout: Duration = .milliseconds(50)
        /// At most one connection attempt per slot this often. Default 250 ms.
        public var reconnectInterval: Duration = .milliseconds(250)
        /// How long connecting (TCP, AUTH, SELECT, SCRIPT LOAD) may take. Default 500 ms.
        public var connectTimeout: Duration = .milliseconds(500)
        /// A connection whose oldest request has waited this long is closed and replaced. Default 1 s
        /// (at least 10 × `timeout`).
        public var stallLimit: Duration = .seconds(1)

        /// A configuration for `url` with every other key at its default.
        public init(url: String) {
            self.url = url
        }
    }

    private let pool: RedisConnectionPool
    private let timeout: TimeAmount
    private let logger: Logger

    /// Whether `url` is a Redis URL this store takes (`redis://[[user]:password@]host[:port][/db]`), so a
    /// configuration check refuses exactly what `init` would.
    public static func isValidURL(_ url: String) -> Bool {
        (try? RedisEndpoint(url: url)) != nil
    }

    /// Validates the configuration; connects nothing until `run()`.
    ///
    /// - Throws: `RateLimitStoreError.invalidConfiguration` for a malformed URL or non-positive sizes and durations.
    public init(
        configuration: Configuration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger
    ) throws(RateLimitStoreError) {
        let endpoint = try RedisEndpoint(url: configuration.url)
        guard configuration.poolSize > 0,
            configuration.timeout > .zero,
            configuration.reconnectInterval > .zero,
            configuration.connectTimeout > .zero
        else { throw .invalidConfiguration.with(detail: "pool size and durations must be positive") }
        self.timeout = TimeAmount(configuration.timeout)
        self.logger = logger
        self.pool = RedisConnectionPool(
            endpoint: endpoint,
            size: configuration.poolSize,
            eventLoopGroup: eventLoopGroup,
            connectTimeout: TimeAmount(configuration.connectTimeout),
            stallLimit: max(TimeAmount(configuration.stallLimit), TimeAmount(configuration.timeout) * 10),
            reconnectInterval: TimeAmount(configuration.reconnectInterval),
            logger: logger
        )
    }

    /// Keeps the pool connected until graceful shutdown (or cancellation), then closes its connections.
    /// Call it once, from a `ServiceGroup`; after it returns, checks fail with `.shutdown`.
    public func run() async throws {
        await withGracefulShutdownHandler {
            await self.pool.run()
        } onGracefulShutdown: {
            self.pool.shutdown()
        }
    }

    /// Connections currently open to Redis: 0 before `run()` has connected and during an outage (for readiness).
    public var liveConnectionCount: Int { self.pool.liveConnectionCount }

    /// One `EVALSHA` on a pooled connection, bounded by `timeout` (connection wait included).
    ///
    /// After `NOSCRIPT` the script is sent again with `EVAL`; a check whose command never left (its connection
    /// closed first) is retried once on another, within the same deadline. A check that times out may still have
    /// run in Redis.
    public func check(_ limit: RateLimit, key: String, cost: Double) async throws(RateLimitStoreError) -> RateLimitDecision {
        precondition(cost > 0 && cost.isFinite, "cost must be positive and finite")
        let deadline = NIODeadline.now() + self.timeout
        var retried = false
        while true {
            let connection = try await self.pool.connection(deadline: deadline)
            do throws(RateLimitStoreError) {
                var reply = try await connection.send(TokenBucketScript.evalSHA(limit: limit, key: key, cost: cost), deadline: deadline)
                if TokenBucketScript.isNoScript(reply) {
                    // Redis lost its script cache (SCRIPT FLUSH, a restart behind a proxy): EVAL runs it and caches it again.
                    self.logger.debug("Redis answered NOSCRIPT; sending the script again")
                    reply = try await connection.send(TokenBucketScript.eval(limit: limit, key: key, cost: cost), deadline: deadline)
                }
                return try TokenBucketScript.decision(from: reply)
            } catch where error.notSent && !retried {
                // The connection closed before the script left: safe to try once on another.
                retried = true
                continue
            }
        }
    }
}
