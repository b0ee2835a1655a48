import RateLimiting

/// The Generations stores' way to Redis: `RedisCommands` (the rate-limit store's pools) with one timeout, and
/// this module's errors. A Redis error reply is `.unavailable` too; every error's detail is for logs.
struct RedisStoreClient: Sendable {
    let commands: RedisCommands
    let timeout: Duration

    /// Runs `script` on the node that serves `keys` (one slot); an error reply throws.
    func run(_ script: RedisScript, keys: [String], _ arguments: [RedisArgument]) async throws(GenerationStoreError) -> RESPValue {
        let reply: RESPValue
        do {
            reply = try await self.commands.run(script, keys: keys, arguments: arguments, timeout: self.timeout)
        } catch {
            throw Self.storeError(error)
        }
        return try Self.checked(reply)
    }

    /// Sends one command to the node that serves `key`; an error reply throws.
    func send(_ arguments: [RedisArgument], key: String) async throws(GenerationStoreError) -> RESPValue {
        let reply: RESPValue
        do {
            reply = try await self.commands.send(arguments, key: key, timeout: self.timeout)
        } catch {
            throw Self.storeError(error)
        }
        return try Self.checked(reply)
    }

    private static func checked(_ reply: RESPValue) throws(GenerationStoreError) -> RESPValue {
        if let message = reply.errorMessage {
            throw GenerationStoreError.unavailable.with(detail: "Redis answered: \(message)")
        }
        return reply
    }

    private static func storeError(_ error: RateLimitStoreError) -> GenerationStoreError {
        let kind: GenerationStoreError = error == .timeout ? .timeout : .unavailable
        return kind.with(detail: error.description)
    }
}

extension Duration {
    /// The duration in whole milliseconds, rounded up (a lease or a TTL is never shortened), at least 1.
    var wholeMilliseconds: Int {
        let (seconds, attoseconds) = self.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(max(1, milliseconds))
    }
}
