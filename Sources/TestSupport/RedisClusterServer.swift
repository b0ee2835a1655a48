import Foundation
import Synchronization

/// A real three-primary Redis Cluster for one test: three `redis-server --cluster-enabled yes` on free loopback
/// ports, joined by `redis-cli --cluster create … --cluster-replicas 0`, ready once every node reports
/// `cluster_state:ok`. Helpers move a slot between primaries the way `redis-cli --cluster reshard` does.
///
/// Prefer `withRedisCluster { cluster in ... }`, which stops it when the body returns or throws.
public final class RedisClusterServer: Sendable {
    /// The primaries, in port order of creation.
    public let nodes: [RedisServer]

    /// `redis://127.0.0.1:<port>,127.0.0.1:<port>,127.0.0.1:<port>`: every node as a seed.
    public var url: String { "redis://" + self.nodes.map { "127.0.0.1:\($0.port)" }.joined(separator: ",") }

    private init(nodes: [RedisServer]) {
        self.nodes = nodes
    }

    /// Starts three nodes, creates the cluster and waits until every node reports `cluster_state:ok`.
    public static func start(startTimeout: Double = 30) async throws -> RedisClusterServer {
        var nodes: [RedisServer] = []
        do {
            for _ in 0..<3 {
                // The bus port is a free port of its own: by default it is the port + 10,000, which Redis refuses
                // past 65,535 (a fifth of the ephemeral ports).
                let arguments = ["--cluster-enabled", "yes", "--cluster-node-timeout", "5000", "--cluster-port", String(try RedisServer.freePort())]
                nodes.append(try await RedisServer.start(arguments: arguments))
            }
            let cluster = RedisClusterServer(nodes: nodes)
            try await offCooperativePool { try cluster.create() }
            try await cluster.waitUntilReady(timeout: startTimeout)
            return cluster
        } catch {
            for node in nodes { node.stop() }
            throw error
        }
    }

    /// Stops every node.
    public func stop() {
        for node in self.nodes { node.stop() }
    }

    /// The node's cluster id (`CLUSTER MYID`).
    public func id(of node: RedisServer) throws -> String {
        try node.cli("CLUSTER", "MYID")
    }

    /// The slot of `key` as Redis computes it (`CLUSTER KEYSLOT`).
    public func slot(of key: String) throws -> Int {
        guard let slot = Int(try self.nodes[0].cli("CLUSTER", "KEYSLOT", key)) else { throw RedisServerError(message: "bad CLUSTER KEYSLOT reply") }
        return slot
    }

    /// The primary serving `slot`, as `node` sees it (by default the first node).
    public func owner(of slot: Int, accordingTo node: RedisServer? = nil) throws -> RedisServer {
        let lines = try (node ?? self.nodes[0]).cli("CLUSTER", "NODES").split(separator: "\n")
        for line in lines {
            let fields = line.split(separator: " ")
            guard fields.count >= 8, fields[2].contains("master") else { continue }
            let serves = fields.dropFirst(8).contains { range in
                guard !range.hasPrefix("[") else { return false }  // a slot being migrated or imported
                let bounds = range.split(separator: "-").compactMap { Int($0) }
                return bounds.count == 1 ? bounds[0] == slot : bounds.count == 2 && (bounds[0]...bounds[1]).contains(slot)
            }
            guard serves, let port = fields[1].split(separator: "@").first?.split(separator: ":").last.flatMap({ Int($0) }),
                let owner = self.nodes.first(where: { $0.port == port })
            else { continue }
            return owner
        }
        throw RedisServerError(message: "no node serves slot \(slot)")
    }

    /// Starts moving `slot` from `source` to `target` and moves its keys (`SETSLOT … IMPORTING` / `MIGRATING`, then
    /// `MIGRATE`), leaving the slot migrating: `source` answers `ASK` for keys it no longer holds.
    public func beginMigration(slot: Int, from source: RedisServer, to target: RedisServer) throws {
        try Self.expectOK(try target.cli("CLUSTER", "SETSLOT", String(slot), "IMPORTING", try self.id(of: source)))
        try Self.expectOK(try source.cli("CLUSTER", "SETSLOT", String(slot), "MIGRATING", try self.id(of: target)))
        while true {
            let keys = try source.cli("CLUSTER", "GETKEYSINSLOT", String(slot), "100").split(separator: "\n").map(String.init)
            guard !keys.isEmpty else { break }
            let reply = try source.cli(arguments: ["MIGRATE", "127.0.0.1", String(target.port), "", "0", "5000", "KEYS"] + keys)
            guard reply == "OK" else { throw RedisServerError(message: "MIGRATE failed: \(reply)") }
        }
    }

    /// Ends a migration begun with `beginMigration`: every node is told that `target` serves `slot`
    /// (`SETSLOT … NODE`), so `source` answers `MOVED` from then on.
    public func finishMigration(slot: Int, from source: RedisServer, to target: RedisServer) throws {
        let targetID = try self.id(of: target)
        for node in [target, source] + self.nodes.filter({ $0 !== target && $0 !== source }) {
            try Self.expectOK(try node.cli("CLUSTER", "SETSLOT", String(slot), "NODE", targetID))
        }
    }

    /// Moves `slot` and its keys from `source` to `target`, as a resharding does.
    public func migrate(slot: Int, from source: RedisServer, to target: RedisServer) throws {
        try self.beginMigration(slot: slot, from: source, to: target)
        try self.finishMigration(slot: slot, from: source, to: target)
    }

    private static func expectOK(_ reply: String) throws {
        guard reply == "OK" else { throw RedisServerError(message: "unexpected reply: \(reply)") }
    }

    /// `redis-cli --cluster create` over the three nodes, no replicas, without asking.
    private func create() throws {
        let process = Process()
        process.executableURL = try RedisServer.executable("redis-cli")
        process.arguments = ["--cluster", "create"] + self.nodes.map { "127.0.0.1:\($0.port)" } + ["--cluster-replicas", "0", "--cluster-yes"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try RedisServer.processLock.withLock { _ in try process.run() }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw RedisServerError(message: "redis-cli --cluster create failed: \(text.suffix(500))")
        }
    }

    /// Polls `CLUSTER INFO` on every node until each reports `cluster_state:ok`.
    private func waitUntilReady(timeout: Double) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let ready = self.nodes.allSatisfy { node in
                (try? node.cli("CLUSTER", "INFO"))?.contains("cluster_state:ok") == true
            }
            if ready { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw RedisServerError(message: "the Redis Cluster did not reach cluster_state:ok")
    }
}

/// Runs `body` with a fresh three-primary Redis Cluster of its own, and stops it after.
public func withRedisCluster<T>(_ body: (RedisClusterServer) async throws -> T) async throws -> T {
    let cluster = try await RedisClusterServer.start()
    do {
        let result = try await body(cluster)
        try? await offCooperativePool { cluster.stop() }
        return result
    } catch {
        try? await offCooperativePool { cluster.stop() }
        throw error
    }
}
