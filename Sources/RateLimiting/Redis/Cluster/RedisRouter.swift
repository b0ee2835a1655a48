import NIOCore

/// Sends an exchange to the node that serves a key: the one server's pool, or in cluster mode the pool of the key's
/// slot's primary, following `MOVED` and `ASK`. The rate-limit checks and `RedisCommands` share it, and so the pools.
struct RedisRouter: Sendable {
    enum Mode: Sendable {
        case single(RedisRoute)
        case cluster(RedisCluster)
    }

    /// Redirections one exchange follows at most (a slot migrating while its map is refreshed takes two).
    static let maximumRedirections = 5

    let mode: Mode

    /// Runs `exchange` on a pooled connection to the node serving `key`, until `deadline` (connection wait included),
    /// and returns the reply it ends with.
    ///
    /// An exchange whose command never left (its connection closed first) is retried once on another connection. In
    /// cluster mode a `MOVED` or `ASK` reply is followed to the node it names (`exchange` runs again there, with
    /// `asking` true after `ASK`), and a `CLUSTERDOWN` reply or a node that fails or times out asks for a topology
    /// refresh.
    func send(
        key: String, deadline: NIODeadline,
        _ exchange: (_ connection: RedisConnection, _ asking: Bool) async throws(RateLimitStoreError) -> RESPValue
    ) async throws(RateLimitStoreError) -> RESPValue {
        var route: RedisRoute
        switch self.mode {
        case .single(let single): route = single
        case .cluster(let cluster): route = try cluster.route(slot: ClusterKeySlot.slot(of: key))
        }
        var asking = false
        var redirections = 0
        var retried = false
        while true {
            do throws(RateLimitStoreError) {
                let connection = try await route.pool.connection(deadline: deadline)
                let reply = try await exchange(connection, asking)
                if case .cluster(let cluster) = self.mode, let redirect = ClusterRedirect(reply, answeredBy: route.node) {
                    redirections += 1
                    guard redirections <= Self.maximumRedirections else {
                        throw RateLimitStoreError.unavailable.with(detail: "more than \(Self.maximumRedirections) Redis Cluster redirections")
                    }
                    route = try cluster.redirected(redirect)
                    asking = redirect.kind == .ask
                    continue
                }
                if case .cluster(let cluster) = self.mode, case .error(let message) = reply, message.hasPrefix("CLUSTERDOWN") {
                    cluster.requestRefresh()
                }
                return reply
            } catch where error.notSent && !retried {
                // The connection closed before the command left: safe to try once on another.
                retried = true
                continue
            } catch {
                // A node that is down, slow or has left: its slots may have a new primary.
                if case .cluster(let cluster) = self.mode, error == .unavailable || error == .timeout {
                    cluster.requestRefresh()
                }
                throw error
            }
        }
    }
}
