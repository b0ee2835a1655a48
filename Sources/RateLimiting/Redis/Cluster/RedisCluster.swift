import Logging
import NIOCore
import Synchronization

/// Where a command goes: a node and the pool of connections to it.
struct RedisRoute: Sendable {
    let node: ClusterNodeAddress
    let pool: RedisConnectionPool
}

/// Routes keys to their slot's primary in a Redis Cluster, with one `RedisConnectionPool` per primary.
///
/// The slot map comes from `CLUSTER SLOTS`, asked of a known node or else a seed. `run()` discovers it, then
/// refreshes it when a check asks (after a `MOVED`, a `CLUSTERDOWN` or a node that fails), at most once per
/// `refreshInterval`; it also runs the pools, starting one for each new primary and closing those of nodes that
/// left. A `MOVED` updates its slot at once, before the refresh.
final class RedisCluster: Sendable {
    private struct State {
        var topology = ClusterTopology()
        /// One pool per entry of `topology.nodes`, in the same order.
        var pools: [RedisConnectionPool] = []
        var isShutDown = false
        /// Whether the last refresh failed, so an outage logs one warning, not one per attempt.
        var isDown = false
    }

    private let state = Mutex(State())
    private let seeds: [RedisEndpoint]
    private let poolSize: Int
    private let eventLoopGroup: any EventLoopGroup
    private let connectTimeout: TimeAmount
    private let stallLimit: TimeAmount
    private let refreshInterval: TimeAmount
    private let logger: Logger
    private let newPools: AsyncStream<RedisConnectionPool>
    private let newPoolContinuation: AsyncStream<RedisConnectionPool>.Continuation
    private let refreshRequests: AsyncStream<Void>
    private let refreshContinuation: AsyncStream<Void>.Continuation

    /// - Parameters:
    ///   - seeds: nodes to ask for the topology when no known node answers; their credentials are every node's.
    ///   - refreshInterval: at most one topology refresh (and one retry after a failed one) this often.
    init(
        seeds: [RedisEndpoint],
        poolSize: Int,
        eventLoopGroup: any EventLoopGroup,
        connectTimeout: TimeAmount,
        stallLimit: TimeAmount,
        refreshInterval: TimeAmount,
        logger: Logger
    ) {
        precondition(!seeds.isEmpty, "a cluster needs a seed node")
        self.seeds = seeds
        self.poolSize = poolSize
        self.eventLoopGroup = eventLoopGroup
        self.connectTimeout = connectTimeout
        self.stallLimit = stallLimit
        self.refreshInterval = refreshInterval
        self.logger = logger
        (self.newPools, self.newPoolContinuation) = AsyncStream.makeStream(of: RedisConnectionPool.self)
        (self.refreshRequests, self.refreshContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The primary serving `slot`, or nil while the topology is not known (a refresh is then requested).
    func route(slot: Int) throws(RateLimitStoreError) -> RedisRoute {
        let route = self.state.withLock { state -> RedisRoute? in
            guard let index = state.topology.ownerIndex(of: slot) else { return nil }
            return RedisRoute(node: state.topology.nodes[index], pool: state.pools[index])
        }
        if let route { return route }
        if self.state.withLock({ $0.isShutDown }) { throw .shutdown }
        self.requestRefresh()
        throw .unavailable.with(detail: "no Redis Cluster node known for slot \(slot) yet")
    }

    /// Follows a redirection: for `MOVED` the slot now belongs to the named node (and a refresh is requested, as
    /// other slots may have moved too); for `ASK` only this command goes there. Either way, the named node's route.
    func redirected(_ redirect: ClusterRedirect) throws(RateLimitStoreError) -> RedisRoute {
        var created: RedisConnectionPool?
        let route = self.state.withLock { state -> RedisRoute? in
            guard !state.isShutDown else { return nil }
            let index = state.topology.index(of: redirect.node)
            if index == state.pools.count {
                let pool = self.makePool(for: redirect.node)
                state.pools.append(pool)
                created = pool
            }
            if redirect.kind == .moved { state.topology.assign(redirect.slot, to: redirect.node) }
            return RedisRoute(node: redirect.node, pool: state.pools[index])
        }
        if let created { self.newPoolContinuation.yield(created) }
        guard let route else { throw .shutdown }
        if redirect.kind == .moved { self.requestRefresh() }
        return route
    }

    /// Asks `run()` to read the topology again (at most once per `refreshInterval`).
    func requestRefresh() {
        self.refreshContinuation.yield(())
    }

    /// Connections open to any node: 0 before the first connects and while every node is unreachable.
    var liveConnectionCount: Int {
        self.state.withLock { $0.pools }.reduce(0) { $0 + $1.liveConnectionCount }
    }

    /// The primaries as last known, for tests and logs.
    var topology: ClusterTopology { self.state.withLock { $0.topology } }

    /// Discovers the topology, refreshes it on request and runs every node's pool, until cancelled or `shutdown()`.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.refreshLoop() }
            for await pool in self.newPools {
                group.addTask { await pool.run() }
            }
            group.cancelAll()
        }
        self.shutdown()
    }

    /// Closes every pool and fails later checks with `.shutdown`. Idempotent.
    func shutdown() {
        let pools = self.state.withLock { state -> [RedisConnectionPool] in
            state.isShutDown = true
            defer {
                state.topology = ClusterTopology()
                state.pools = []
            }
            return state.pools
        }
        self.refreshContinuation.finish()
        self.newPoolContinuation.finish()
        for pool in pools { pool.shutdown() }
    }

    private func refreshLoop() async {
        var requests = self.refreshRequests.makeAsyncIterator()
        while !Task.isCancelled {
            let started = NIODeadline.now()
            if await self.refresh() {
                guard await requests.next() != nil else { return }
            }
            let wait = started + self.refreshInterval - .now()
            if wait > .zero { try? await Task.sleep(for: Duration(wait)) }
        }
    }

    /// Reads `CLUSTER SLOTS` from the first known node or seed that answers, and applies it. False when none did.
    private func refresh() async -> Bool {
        let known = self.state.withLock { $0.topology.nodes }
        var candidates = known.map(self.endpoint(for:))
        for seed in self.seeds where !known.contains(ClusterNodeAddress(host: seed.host, port: seed.port)) {
            candidates.append(seed)
        }
        var lastError = RateLimitStoreError.unavailable
        for endpoint in candidates {
            do throws(RateLimitStoreError) {
                let deadline = NIODeadline.now() + self.connectTimeout
                let connection = try await RedisConnection.connect(
                    to: endpoint, eventLoopGroup: self.eventLoopGroup, deadline: deadline, stallLimit: self.stallLimit,
                    setup: endpoint.setupCommands
                )
                defer { connection.close() }
                let reply = try await connection.send(RedisCommand("CLUSTER", "SLOTS"), deadline: deadline)
                self.apply(try ClusterTopology(slotsReply: reply, answeredBy: ClusterNodeAddress(host: endpoint.host, port: endpoint.port)))
                return true
            } catch {
                lastError = error
            }
        }
        let firstFailure = self.state.withLock { state in
            defer { state.isDown = true }
            return !state.isDown
        }
        self.logger.log(
            level: firstFailure ? .warning : .debug, "Cannot read the Redis Cluster topology; retrying",
            metadata: ["error": "\(lastError.shortDescription)", "detail": "\(lastError)", "redis.nodes_tried": .stringConvertible(candidates.count)]
        )
        return false
    }

    /// Installs `topology`: keeps the pools of nodes still in it, starts pools for new ones, closes the rest.
    private func apply(_ topology: ClusterTopology) {
        var created: [RedisConnectionPool] = []
        var retired: [RedisConnectionPool] = []
        let changed = self.state.withLock { state -> Bool in
            guard !state.isShutDown else { return false }
            var current = Dictionary(zip(state.topology.nodes, state.pools), uniquingKeysWith: { first, _ in first })
            var pools: [RedisConnectionPool] = []
            for node in topology.nodes {
                if let pool = current.removeValue(forKey: node) {
                    pools.append(pool)
                } else {
                    let pool = self.makePool(for: node)
                    pools.append(pool)
                    created.append(pool)
                }
            }
            retired = Array(current.values)
            let changed = state.topology != topology || state.isDown
            state.topology = topology
            state.pools = pools
            state.isDown = false
            return changed
        }
        for pool in created { self.newPoolContinuation.yield(pool) }
        for pool in retired { pool.shutdown() }
        if changed {
            self.logger.info(
                "Redis Cluster topology read",
                metadata: [
                    "redis.primaries": "\(topology.nodes.map(\.description).joined(separator: ","))",
                    "redis.unserved_slots": .stringConvertible(topology.unservedSlotCount),
                ]
            )
        }
    }

    private func endpoint(for node: ClusterNodeAddress) -> RedisEndpoint {
        let seed = self.seeds[0]
        return RedisEndpoint(host: node.host, port: node.port, username: seed.username, password: seed.password, database: 0)
    }

    private func makePool(for node: ClusterNodeAddress) -> RedisConnectionPool {
        RedisConnectionPool(
            endpoint: self.endpoint(for: node), size: self.poolSize, eventLoopGroup: self.eventLoopGroup,
            connectTimeout: self.connectTimeout, stallLimit: self.stallLimit, reconnectInterval: self.refreshInterval,
            logger: self.logger
        )
    }
}
