import Logging
import NIOCore

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
