public import RateLimiting

/// Idempotency records in Redis, shared by every replica: each operation is one Lua script (`IdempotencyScripts`)
/// that applies `IdempotencyRecord`'s rules atomically with Redis's clock.
///
/// A record is a hash at `IdempotencyScope.storageKey`, hash-tagged by the user, so it works in Redis Cluster. It
/// expires at its lease's end while running, `keepFor` after a 2xx, `IdempotencyRecord.releasedSeconds` after any
/// other answer. A waiter is woken at once when this process ends the run; a run on another replica is polled.
///
/// It sends on a `RedisRateLimitStore`'s connections (`RedisRateLimitStore.commands`): that store's `run()` keeps
/// them up.
public final class RedisIdempotencyStore: IdempotencyStore {
    /// Every key, its type and its default.
    public struct Configuration: Sendable {
        /// How long one operation's round trip to Redis may take. Default 1 s.
        public var timeout: Duration = .seconds(1)
        /// How often a waiter reads a record whose run is on another replica. Default 100 ms.
        public var pollInterval: Duration = .milliseconds(100)

        /// A configuration with every key at its default.
        public init() {}
    }

    private let redis: RedisStoreClient
    private let pollInterval: Duration
    private let waiters = WakeupRegistry<IdempotencyScope>()

    /// A store on `commands` (`RedisRateLimitStore.commands`); connects nothing of its own.
    public init(commands: RedisCommands, configuration: Configuration = Configuration()) {
        precondition(configuration.timeout > .zero && configuration.pollInterval > .zero, "durations must be positive")
        self.redis = RedisStoreClient(commands: commands, timeout: configuration.timeout)
        self.pollInterval = configuration.pollInterval
    }

    public func begin(_ scope: IdempotencyScope, fingerprint: RequestFingerprint, owner: String, lease: Duration) async throws(GenerationStoreError)
        -> IdempotencyBegin
    {
        let reply = try await self.redis.run(
            IdempotencyScripts.begin, keys: [scope.storageKey],
            [RedisArgument(fingerprint.hex), RedisArgument(owner), RedisArgument(lease.wholeMilliseconds)]
        )
        switch try Self.tagged(reply) {
        case ("started", _): return .started
        case ("in_flight", _): return .inFlight
        case ("mismatch", _): return .mismatch
        case ("replay", let answer?): return .replay(try Self.answer(answer))
        default: throw .corrupt.with(detail: "unexpected idempotency begin reply")
        }
    }

    public func renew(_ scope: IdempotencyScope, owner: String, lease: Duration) async throws(GenerationStoreError) -> Bool {
        let reply = try await self.redis.run(
            IdempotencyScripts.renew, keys: [scope.storageKey], [RedisArgument(owner), RedisArgument(lease.wholeMilliseconds)]
        )
        return reply.integer == 1
    }

    public func end(_ scope: IdempotencyScope, owner: String, answer: StoredAnswer, keepFor: Duration) async throws(GenerationStoreError) {
        let keep = answer.isSuccess ? keepFor : .seconds(IdempotencyRecord.releasedSeconds)
        _ = try await self.redis.run(
            IdempotencyScripts.end, keys: [scope.storageKey],
            [
                RedisArgument(owner), RedisArgument(answer.isSuccess ? "completed" : "released"), RedisArgument(bytes: answer.encoded()),
                RedisArgument(keep.wholeMilliseconds),
            ]
        )
        self.waiters.signal(scope)
    }

    public func wait(
        _ scope: IdempotencyScope, fingerprint: RequestFingerprint, until deadline: ContinuousClock.Instant
    ) async throws(GenerationStoreError) -> IdempotencyWait
    {
        while true {
            // Registered before the read: an end in this process between the two still wakes this waiter.
            let wakeup = self.waiters.register(scope)
            defer { self.waiters.remove(wakeup, for: scope) }
            let reply = try await self.redis.run(IdempotencyScripts.joined, keys: [scope.storageKey], [RedisArgument(fingerprint.hex)])
            switch try Self.tagged(reply) {
            case ("free", _): return .free
            case ("answered", let answer?): return .answered(try Self.answer(answer))
            case ("running", _): break
            default: throw .corrupt.with(detail: "unexpected idempotency wait reply")
            }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return .timedOut }
            await wakeup.wait(until: min(deadline, .now + self.pollInterval))
        }
    }

    /// Waiters parked in this process (for tests).
    var waiterCount: Int { self.waiters.count }

    /// A script's `{tag}` or `{tag, value}` reply.
    private static func tagged(_ reply: RESPValue) throws(GenerationStoreError) -> (String, RESPValue?) {
        guard let elements = reply.array, let tag = elements.first?.string, elements.count <= 2 else {
            throw .corrupt.with(detail: "unexpected idempotency script reply")
        }
        return (tag, elements.count == 2 ? elements[1] : nil)
    }

    private static func answer(_ value: RESPValue) throws(GenerationStoreError) -> StoredAnswer {
        guard let bytes = value.bytes, let answer = StoredAnswer(encoded: bytes) else {
            throw .corrupt.with(detail: "an idempotency record's answer is unreadable")
        }
        return answer
    }
}
