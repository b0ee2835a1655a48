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
/// A bucket is the hash `storygate:rl:<limit>:{<keyHash(key)>}`. In cluster mode the store keeps a pool per
/// primary, sends each check to its key's slot's primary and follows `MOVED` and `ASK` (`RedisCluster`).
///
/// Run it as a `Service`: `run()` keeps the pool connected until graceful shutdown, then closes it. Until `run()`
/// has started, checks fail (with `.timeout` or `.unavailable`).
public final class RedisRateLimitStore: RateLimitStore, Service, Sendable {
    /// Every key, its type and its default.
    public struct Configuration: Sendable {
        /// `redis://[[user]:password@]host[:port][/db]`; port 6379 and database 0 by default. In cluster mode, one
        /// or more seed nodes: `redis://[[user]:password@]host[:port][,host[:port]...]` (database 0 only).
        public var url: String
        /// Whether `url` names Redis Cluster seed nodes: the slot map is read with `CLUSTER SLOTS`, each check goes
        /// to its key's primary, `MOVED` and `ASK` are followed. Default false.
        public var cluster = false
        /// A user's pseudonym in their bucket keys, the hash tag of `storygate:rl:<limit>:{<tag>}`: no raw key is
        /// stored, and users spread over a cluster's slots. Default: 16 hex digits of SHA-1 over the
        /// domain-separated key (the gateway passes its logs' uid hash, so a key matches the logs' `uid_hash`).
        public var keyHash: @Sendable (String) -> String = RedisRateLimitStore.defaultKeyHash
        /// Connections in the pool (per primary in cluster mode), used round robin. Default 4.
        public var poolSize = 4
        /// How long one check may take, connection wait and cluster redirections included. Default 50 ms.
        public var timeout: Duration = .milliseconds(50)
        /// At most one connection attempt per slot this often, and one cluster topology refresh. Default 250 ms.
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

    /// Tags cached for this many keys at most: more than a replica's active users in a few seconds.
    static let keyTagCacheCapacity = 16_384

    /// A single server's pool, or the cluster's pools.
    private let router: RedisRouter
    private let keyTags: KeyTagCache
    private let timeout: TimeAmount
    private let logger: Logger

    /// Whether `url` is a Redis URL this store takes (`redis://[[user]:password@]host[:port][/db]`; in cluster mode
    /// one or more comma-separated hosts and no database), so a configuration check refuses exactly what `init` would.
    public static func isValidURL(_ url: String, cluster: Bool = false) -> Bool {
        (try? Self.seeds(url: url, cluster: cluster)) != nil
    }

    /// Why `url` is not usable in the given mode, with the form expected; nil when it is.
    public static func problem(withURL url: String, cluster: Bool) -> String? {
        do throws(RateLimitStoreError) {
            _ = try Self.seeds(url: url, cluster: cluster)
            return nil
        } catch {
            return error.detail ?? error.shortDescription
        }
    }

    /// The default `Configuration.keyHash`: 16 hex digits of SHA-1 over `storygate/rl-user/<key>`.
    public static let defaultKeyHash: @Sendable (String) -> String = { key in
        String(SHA1.hexDigest("storygate/rl-user/" + key).prefix(16))
    }

    /// Validates the configuration; connects nothing until `run()`.
    ///
    /// - Throws: `RateLimitStoreError.invalidConfiguration` for a malformed URL or non-positive sizes and durations.
    public init(
        configuration: Configuration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger
    ) throws(RateLimitStoreError) {
        let seeds: [RedisEndpoint]
        do throws(RateLimitStoreError) {
            seeds = try Self.seeds(url: configuration.url, cluster: configuration.cluster)
        } catch {
            let form = configuration.cluster ? "redis://[[user]:password@]host[:port][,host[:port]...]" : "redis://[[user]:password@]host[:port][/db]"
            throw error.with(detail: "\(error.detail ?? "malformed Redis URL"); expected \(form)")
        }
        guard configuration.poolSize > 0,
            configuration.timeout > .zero,
            configuration.reconnectInterval > .zero,
            configuration.connectTimeout > .zero
        else { throw .invalidConfiguration.with(detail: "pool size and durations must be positive") }
        self.timeout = TimeAmount(configuration.timeout)
        self.keyTags = KeyTagCache(capacity: Self.keyTagCacheCapacity, keyHash: configuration.keyHash)
        self.logger = logger
        let stallLimit = max(TimeAmount(configuration.stallLimit), TimeAmount(configuration.timeout) * 10)
        if configuration.cluster {
            self.router = RedisRouter(mode: .cluster(
                RedisCluster(
                    seeds: seeds, poolSize: configuration.poolSize, eventLoopGroup: eventLoopGroup,
                    connectTimeout: TimeAmount(configuration.connectTimeout), stallLimit: stallLimit,
                    refreshInterval: TimeAmount(configuration.reconnectInterval), logger: logger
                )
            ))
        } else {
            let pool = RedisConnectionPool(
                endpoint: seeds[0],
                size: configuration.poolSize,
                eventLoopGroup: eventLoopGroup,
                connectTimeout: TimeAmount(configuration.connectTimeout),
                stallLimit: stallLimit,
                reconnectInterval: TimeAmount(configuration.reconnectInterval),
                logger: logger
            )
            self.router = RedisRouter(mode: .single(RedisRoute(node: ClusterNodeAddress(host: seeds[0].host, port: seeds[0].port), pool: pool)))
        }
    }

    private static func seeds(url: String, cluster: Bool) throws(RateLimitStoreError) -> [RedisEndpoint] {
        let endpoints = try RedisEndpoint.endpoints(url: url)
        if cluster {
            guard endpoints[0].database == 0 else {
                throw .invalidConfiguration.with(detail: "Redis Cluster has database 0 only")
            }
        } else {
            guard endpoints.count == 1 else {
                throw .invalidConfiguration.with(detail: "Redis URL lists several hosts, which only Redis Cluster mode takes")
            }
        }
        return endpoints
    }

    /// Keeps the pool connected (in cluster mode: the topology read and a pool per primary) until graceful shutdown
    /// (or cancellation), then closes its connections. Call it once, from a `ServiceGroup`; after it returns, checks
    /// fail with `.shutdown`.
    public func run() async throws {
        switch self.router.mode {
        case .single(let route):
            await withGracefulShutdownHandler {
                await route.pool.run()
            } onGracefulShutdown: {
                route.pool.shutdown()
            }
        case .cluster(let cluster):
            await withGracefulShutdownHandler {
                await cluster.run()
            } onGracefulShutdown: {
                cluster.shutdown()
            }
        }
    }

    /// Connections currently open to Redis (to any node): 0 before `run()` has connected and during an outage
    /// (for readiness).
    public var liveConnectionCount: Int {
        switch self.router.mode {
        case .single(let route): route.pool.liveConnectionCount
        case .cluster(let cluster): cluster.liveConnectionCount
        }
    }

    /// The cluster's slot map as last read; nil outside cluster mode (for tests).
    var clusterTopology: ClusterTopology? {
        guard case .cluster(let cluster) = self.router.mode else { return nil }
        return cluster.topology
    }

    /// The Redis key of the bucket for (`limit`, `key`), for operators and tests.
    public func redisKey(for limit: RateLimit, key: String) -> String {
        TokenBucketScript.redisKey(limit: limit, tag: self.keyTags.tag(for: key))
    }

    /// `check` without a task or a future for the common case, a live connection on `eventLoop` outside cluster mode:
    /// the command is written and its reply read on that loop, and `complete` called there. Anything else (no such
    /// connection, `NOSCRIPT`, a command that never left) goes to `check` in a task, which never runs the script
    /// twice: `NOSCRIPT` means it did not run. Call it on `eventLoop`.
    public func check(
        _ limit: RateLimit, key: String, cost: Double, on eventLoop: any EventLoop,
        then complete: @escaping (Result<RateLimitDecision, RateLimitStoreError>) -> Void
    ) {
        precondition(cost > 0 && cost.isFinite, "cost must be positive and finite")
        guard case .single(let route) = self.router.mode, let connection = route.pool.connectionNow(on: eventLoop) else {
            self.checkInTask(limit, key: key, cost: cost, on: eventLoop, then: complete)
            return
        }
        let command = TokenBucketScript.Check(limit: limit, tag: self.keyTags.tag(for: key), cost: cost)
        connection.send(command, deadline: .now() + self.timeout) { result in
            switch result {
            case .success(let reply) where TokenBucketScript.isNoScript(reply):
                self.checkInTask(limit, key: key, cost: cost, on: eventLoop, then: complete)
            case .success(let reply):
                complete(Result { () throws(RateLimitStoreError) in try TokenBucketScript.decision(from: reply) })
            case .failure(let error) where error.notSent:
                self.checkInTask(limit, key: key, cost: cost, on: eventLoop, then: complete)
            case .failure(let error):
                complete(.failure(error))
            }
        }
    }

    /// One `EVALSHA` on a pooled connection, bounded by `timeout` (connection wait included).
    ///
    /// After `NOSCRIPT` the script is sent again with `EVAL`; a check whose command never left (its connection
    /// closed first) is retried once on another, within the same deadline. In cluster mode a `MOVED` or `ASK` is
    /// followed to the node it names, and a node that fails asks for a topology refresh. A check that times out may
    /// still have run in Redis.
    public func check(_ limit: RateLimit, key: String, cost: Double) async throws(RateLimitStoreError) -> RateLimitDecision {
        precondition(cost > 0 && cost.isFinite, "cost must be positive and finite")
        let deadline = NIODeadline.now() + self.timeout
        let redisKey = self.redisKey(for: limit, key: key)
        let logger = self.logger
        let reply = try await self.router.send(key: redisKey, deadline: deadline) { connection, asking throws(RateLimitStoreError) in
            try await connection.evaluate(
                TokenBucketScript.evalSHA(key: redisKey, limit: limit, cost: cost),
                orElse: { TokenBucketScript.eval(key: redisKey, limit: limit, cost: cost) }, asking: asking, deadline: deadline, logger: logger
            )
        }
        return try TokenBucketScript.decision(from: reply)
    }

    /// Any command or Lua script on this store's connections, routed as its checks are (for other features that keep
    /// state in the same Redis: no connection of their own). They work while `run()` runs.
    public var commands: RedisCommands {
        RedisCommands(router: self.router, logger: self.logger)
    }
}
