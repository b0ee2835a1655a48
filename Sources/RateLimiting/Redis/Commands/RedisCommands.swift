import Logging
import NIOCore

/// Any Redis command or Lua script, sent on a `RedisRateLimitStore`'s connections and routed as its checks are:
/// in cluster mode to the primary of the key's slot, following `MOVED` and `ASK`. Other features share the store's
/// pools this way, and open no connection of their own; they work while the store's `run()` runs.
///
/// The connections are pipelined and shared, so a command that blocks or changes the connection's state (`BLPOP`,
/// `XREAD … BLOCK`, `WAIT`, `SUBSCRIBE`, `MULTI`, `SELECT` …) is refused with a precondition failure: poll instead,
/// or run the steps in one script.
public struct RedisCommands: Sendable {
    private let router: RedisRouter
    private let logger: Logger

    init(router: RedisRouter, logger: Logger) {
        self.router = router
        self.logger = logger
    }

    /// Whether the store runs against a Redis Cluster, where the keys one script touches must share a slot.
    public var isCluster: Bool {
        if case .cluster = self.router.mode { return true }
        return false
    }

    /// Sends one command to the node serving `key` and returns its reply, within `timeout`.
    ///
    /// An error reply is returned as `.error` for the caller to read (only redirections are followed here). A command
    /// that times out may still have run in Redis. A command whose connection closed before it left is sent once more.
    public func send(_ arguments: [RedisArgument], key: String, timeout: Duration) async throws(RateLimitStoreError) -> RESPValue {
        precondition(!arguments.isEmpty, "a command has a name")
        precondition(!Self.holdsConnection(arguments), "\(arguments[0].text) would block or change a shared connection")
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let request = RedisRequest(arguments: arguments)
        return try await self.router.send(key: key, deadline: deadline) { connection, asking throws(RateLimitStoreError) in
            try await connection.send(request, asking: asking, deadline: deadline)
        }
    }

    /// Runs `script` with `EVALSHA`, and with `EVAL` when Redis does not have it cached (`NOSCRIPT`), on the node
    /// serving `keys[0]`; returns its reply (an error reply as `.error`), within `timeout`.
    ///
    /// In cluster mode every key must be in one slot (give them one hash tag): Redis refuses the rest (`CROSSSLOT`).
    public func run(_ script: RedisScript, keys: [String], arguments: [RedisArgument], timeout: Duration) async throws(RateLimitStoreError)
        -> RESPValue
    {
        precondition(!keys.isEmpty, "a script is routed by its first key")
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        let tail = [RedisArgument(keys.count)] + keys.map { RedisArgument($0) } + arguments
        let evalSHA = RedisRequest(arguments: ["EVALSHA", RedisArgument(script.sha1)] + tail)
        let logger = self.logger
        return try await self.router.send(key: keys[0], deadline: deadline) { connection, asking throws(RateLimitStoreError) in
            try await connection.evaluate(
                evalSHA, orElse: { RedisRequest(arguments: ["EVAL", RedisArgument(script.source)] + tail) }, asking: asking, deadline: deadline,
                logger: logger
            )
        }
    }

    /// Commands that wait on the server or change the connection for the commands after them.
    private static let connectionHolding: Set<String> = [
        "BLPOP", "BRPOP", "BRPOPLPUSH", "BLMOVE", "BLMPOP", "BZPOPMIN", "BZPOPMAX", "BZMPOP", "WAIT", "WAITAOF",
        "SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE", "MONITOR",
        "MULTI", "EXEC", "DISCARD", "WATCH", "UNWATCH", "SELECT", "AUTH", "HELLO", "RESET", "QUIT", "CLIENT", "ASKING", "READONLY",
    ]

    private static func holdsConnection(_ arguments: [RedisArgument]) -> Bool {
        let name = arguments[0].text.uppercased()
        if Self.connectionHolding.contains(name) { return true }
        if name == "XREAD" || name == "XREADGROUP" {
            // Options come before STREAMS; after it, keys and ids (a consumer may be called "block").
            let options = arguments.dropFirst().prefix { $0.text.uppercased() != "STREAMS" }
            return options.contains { $0.text.uppercased() == "BLOCK" }
        }
        return false
    }
}
