import Synchronization

/// Idempotency records in this process, for a gateway without Redis: at most `capacity` records, the oldest
/// ended one evicted first (a record still running is never evicted; with only running records left, `begin` is
/// `.full`). Records past their time are dropped as they are met.
public final class InMemoryIdempotencyStore: IdempotencyStore {
    private struct Entry {
        var record: IdempotencyRecord
        /// When the record goes (seconds since 1970): a kept answer's end, a released one's, or a run's lease.
        var expires: Double
        var waiters: [Wakeup] = []
    }

    private struct State {
        var entries: [IdempotencyScope: Entry] = [:]
        /// Scopes in the order their records were written, for eviction (may hold stale scopes).
        var order: [IdempotencyScope] = []
        var orderStart = 0
    }

    private let state = Mutex(State())
    private let capacity: Int
    private let now: @Sendable () -> Double

    /// - Parameters:
    ///   - capacity: the most records kept at once.
    ///   - now: the wall clock, seconds since 1970.
    public init(capacity: Int = 100_000, now: @escaping @Sendable () -> Double) {
        precondition(capacity > 0, "capacity must be positive")
        self.capacity = capacity
        self.now = now
    }

    public func begin(_ scope: IdempotencyScope, fingerprint: RequestFingerprint, owner: String, lease: Duration) throws(GenerationStoreError)
        -> IdempotencyBegin
    {
        let now = self.now()
        return try self.state.withLock { state throws(GenerationStoreError) -> IdempotencyBegin in
            let current = state.entries[scope].flatMap { $0.expires > now ? $0.record : nil }
            let (outcome, record) = IdempotencyRecord.begin(current, fingerprint: fingerprint, owner: owner, now: now, lease: lease.seconds)
            if let record {
                if state.entries[scope] == nil { try Self.makeRoom(&state, capacity: self.capacity, now: now) }
                Self.write(&state, scope, record, expires: now + lease.seconds)
            }
            return outcome
        }
    }

    public func renew(_ scope: IdempotencyScope, owner: String, lease: Duration) -> Bool {
        let now = self.now()
        return self.state.withLock { state in
            // A record past its time is gone, as in Redis: a lapsed lease is not renewed.
            let current = state.entries[scope].flatMap { $0.expires > now ? $0.record : nil }
            guard let renewed = IdempotencyRecord.renew(current, owner: owner, leaseEnds: now + lease.seconds) else { return false }
            state.entries[scope]?.record = renewed
            state.entries[scope]?.expires = now + lease.seconds
            return true
        }
    }

    public func end(_ scope: IdempotencyScope, owner: String, answer: StoredAnswer, keepFor: Duration) {
        let now = self.now()
        let waiters = self.state.withLock { state -> [Wakeup] in
            // A run whose lease lapsed no longer holds the key, even if no other run took it yet.
            guard let entry = state.entries[scope], entry.expires > now,
                let ended = IdempotencyRecord.end(entry.record, owner: owner, answer: answer)
            else { return [] }
            let keep = answer.isSuccess ? keepFor.seconds : IdempotencyRecord.releasedSeconds
            state.entries[scope] = Entry(record: ended, expires: now + keep)
            state.order.append(scope)
            return entry.waiters
        }
        for waiter in waiters { waiter.signal() }
    }

    public func wait(_ scope: IdempotencyScope, fingerprint: RequestFingerprint, until deadline: ContinuousClock.Instant) async -> IdempotencyWait {
        while true {
            let now = self.now()
            let wakeup = Wakeup()
            let seen = self.state.withLock { state -> IdempotencyWait? in
                let record = state.entries[scope].flatMap { $0.expires > now ? $0.record : nil }
                let seen = IdempotencyRecord.joined(record, fingerprint: fingerprint, now: now)
                if seen == nil { state.entries[scope]?.waiters.append(wakeup) }
                return seen
            }
            if let seen { return seen }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return .timedOut }
            // Woken by the run's end; at least once a second, to see a lapsed lease.
            await wakeup.wait(until: min(deadline, .now + .seconds(1)))
        }
    }

    /// Number of records held (for tests and metrics).
    public var count: Int { self.state.withLock { $0.entries.count } }

    private static func write(_ state: inout State, _ scope: IdempotencyScope, _ record: IdempotencyRecord, expires: Double) {
        let waiters = state.entries[scope]?.waiters ?? []
        state.entries[scope] = Entry(record: record, expires: expires, waiters: waiters)
        state.order.append(scope)
    }

    /// Drops expired records, then the oldest ended one, until one more fits.
    private static func makeRoom(_ state: inout State, capacity: Int, now: Double) throws(GenerationStoreError) {
        guard state.entries.count >= capacity else { return }
        state.entries = state.entries.filter { $0.value.expires > now || !$0.value.waiters.isEmpty }
        var index = state.orderStart
        while state.entries.count >= capacity, index < state.order.count {
            let scope = state.order[index]
            index += 1
            if let entry = state.entries[scope], entry.waiters.isEmpty, !entry.record.isRunning { state.entries[scope] = nil }
        }
        state.orderStart = index
        if state.orderStart > 4096, state.orderStart * 2 > state.order.count {
            state.order.removeFirst(state.orderStart)
            state.orderStart = 0
        }
        if state.entries.count >= capacity { throw .full }
    }
}

extension IdempotencyRecord {
    var isRunning: Bool {
        if case .running = self { return true }
        return false
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        let (seconds, attoseconds) = self.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
