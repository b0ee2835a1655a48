import Logging
import NIOCore

/// A Lua script for `RedisCommands.run(_:keys:arguments:timeout:)`, named by its SHA-1 as `EVALSHA` takes it.
/// Make it once (a `static let`): the digest is computed in `init`.
public struct RedisScript: Sendable, Hashable {
    /// The Lua source, as `EVAL` sends it.
    public let source: String
    /// The lowercase hex SHA-1 of `source`, as `SCRIPT LOAD` returns it.
    public let sha1: String

    /// The script with this source; its SHA-1 is computed here.
    public init(_ source: String) {
        self.source = source
        self.sha1 = SHA1.hexDigest(source)
    }
}

extension RedisConnection {
    /// Sends `evalSHA`, and `eval` (which runs the script and caches it again) when Redis answers `NOSCRIPT`: it lost
    /// its script cache (SCRIPT FLUSH, a restart behind a proxy, a node new to the cluster). `NOSCRIPT` means the
    /// script did not run, so it never runs twice.
    func evaluate(
        _ evalSHA: some RESPEncodable & Sendable, orElse eval: () -> some RESPEncodable & Sendable, asking: Bool, deadline: NIODeadline,
        logger: Logger
    ) async throws(RateLimitStoreError) -> RESPValue {
        let reply = try await self.send(evalSHA, asking: asking, deadline: deadline)
        guard TokenBucketScript.isNoScript(reply) else { return reply }
        logger.debug("Redis answered NOSCRIPT; sending the script again")
        return try await self.send(eval(), asking: asking, deadline: deadline)
    }
}
