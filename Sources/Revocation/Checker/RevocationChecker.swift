public import Logging
import Synchronization

/// The revocation check at the edge: each user's state cached for the max age, at most one lookup in flight per
/// user (concurrent requests wait for it), the failure policy when a lookup fails.
///
/// ``stateNow(uid:issuedAt:now:)`` decides without suspending whenever a state (or a recent failure) is known, so the
/// edge stays synchronous for cached users; ``check(uid:issuedAt:)`` also looks the user up when needed.
public final class RevocationChecker: Sendable {
    struct Entry {
        var known: CachedAccountState?
        var lastFailureAt: Double?
        var inFlight: Task<Void, Never>?
        /// Bumped by every drop: a lookup started before a drop does not store its (possibly older) answer.
        var generation = 0
    }

    /// One lock's worth of users.
    final class Shard: Sendable {
        let entries = Mutex<[String: Entry]>([:])
    }

    static let shardCount = 16

    /// The users kept per shard; beyond it, states older than the max age are swept, then any.
    let maximumEntriesPerShard: Int
    private let shards: [Shard]
    public let rule: RevocationRule
    private let lookup: any AccountLookup
    private let shared: (any SharedAccountStates)?
    private let metrics: RevocationMetrics
    private let logger: Logger
    private let clock: @Sendable () -> Double

    /// - Parameters:
    ///   - shared: states shared with other replicas, consulted before Google and given every state looked up.
    ///   - maximumEntries: users whose state is kept (beyond it, the oldest states are dropped first).
    ///   - now: seconds since the epoch; injectable for tests.
    public init(
        settings: RevocationSettings, lookup: any AccountLookup, shared: (any SharedAccountStates)? = nil, metrics: RevocationMetrics,
        logger: Logger, maximumEntries: Int = 1_000_000, now: @escaping @Sendable () -> Double
    ) {
        self.rule = RevocationRule(settings: settings)
        self.lookup = lookup
        self.shared = shared
        self.metrics = metrics
        self.logger = logger
        self.clock = now
        self.maximumEntriesPerShard = max(1, maximumEntries / Self.shardCount)
        self.shards = (0..<Self.shardCount).map { _ in Shard() }
    }

    private func shard(_ uid: String) -> Int {
        var hasher = Hasher()
        hasher.combine(uid)
        return Int(UInt(bitPattern: hasher.finalize()) % UInt(Self.shardCount))
    }

    /// The verdict for a token of `uid` issued at `issuedAt`, if it can be had without a lookup.
    public func stateNow(uid: String, issuedAt: Double, now: Double) -> RevocationRule.Decision {
        let decision = self.shards[self.shard(uid)].entries.withLock { entries in
            let entry = entries[uid]
            return self.rule.decide(known: entry?.known, lastFailureAt: entry?.lastFailureAt, issuedAt: issuedAt, now: now)
        }
        if case .decided(_, let age) = decision {
            if let age, age < self.rule.settings.maxAge { self.metrics.cacheHit() } else { self.stale(uid: uid) }
            if let age { self.metrics.served(stateAge: age, now: now) }
        }
        return decision
    }

    /// The verdict for a token of `uid` issued at `issuedAt`: from the cache, or after a lookup (shared with every
    /// concurrent request for the same user).
    public func check(uid: String, issuedAt: Double) async -> RevocationVerdict {
        if case .decided(let verdict, _) = self.stateNow(uid: uid, issuedAt: issuedAt, now: self.clock()) { return verdict }
        return await self.lookUp(uid: uid, issuedAt: issuedAt)
    }

    /// The rest of ``check(uid:issuedAt:)`` after ``stateNow(uid:issuedAt:now:)`` answered `.needsLookup`.
    public func lookUp(uid: String, issuedAt: Double) async -> RevocationVerdict {
        let index = self.shard(uid)
        var known: CachedAccountState?
        // A lookup that a drop overtook stores nothing and records no failure: the waiters look up once more.
        for _ in 0..<2 {
            let task = self.shards[index].entries.withLock { entries -> Task<Void, Never> in
                if let inFlight = entries[uid]?.inFlight { return inFlight }
                if entries[uid] == nil, entries.count >= self.maximumEntriesPerShard { self.sweep(&entries) }
                let generation = entries[uid]?.generation ?? 0
                let task = Task { await self.performLookup(uid: uid, generation: generation) }
                entries[uid, default: Entry()].inFlight = task
                return task
            }
            await task.value
            let (state, failed) = self.shards[index].entries.withLock { ($0[uid]?.known, $0[uid]?.lastFailureAt != nil) }
            known = state
            if state != nil || failed { break }
        }
        let now = self.clock()
        let decision: RevocationRule.Decision
        if let known, now - known.fetchedAt < self.rule.settings.maxAge {
            decision = .decided(RevocationRule.verdict(known.state, issuedAt: issuedAt), stateAge: max(0, now - known.fetchedAt))
        } else {
            decision = self.rule.decideWithoutFreshState(known: known, issuedAt: issuedAt, now: now)
            self.stale(uid: uid)
        }
        guard case .decided(let verdict, let age) = decision else { return .allowed }  // decideWithoutFreshState always decides
        if let age { self.metrics.served(stateAge: age, now: now) }
        return verdict
    }

    /// Forgets what is known about `uids`, so their next request looks them up afresh.
    public func drop(uids: some Sequence<String>) {
        for uid in uids {
            self.shards[self.shard(uid)].entries.withLock { entries in
                guard var entry = entries[uid] else { return }
                entry.known = nil
                entry.lastFailureAt = nil
                entry.generation += 1
                entries[uid] = entry.inFlight == nil ? nil : entry
            }
        }
    }

    /// Forgets what this replica and every other one know about `uids` (through the shared states, when any).
    public func dropEverywhere(uids: [String]) async throws {
        self.drop(uids: uids)
        try await self.shared?.broadcastDrop(uids: uids)
    }

    /// The state held for `uid`, if any (for tests and the shared store).
    public func cachedState(uid: String) -> CachedAccountState? {
        self.shards[self.shard(uid)].entries.withLock { $0[uid]?.known }
    }

    /// Stores `state` for `uid` (a state another replica looked up) unless a newer one is held.
    public func store(_ state: CachedAccountState, uid: String) {
        self.shards[self.shard(uid)].entries.withLock { entries in
            var entry = entries[uid] ?? Entry()
            if let known = entry.known, known.fetchedAt > state.fetchedAt { return }
            entry.known = state
            entry.lastFailureAt = nil
            entries[uid] = entry
        }
    }

    private func performLookup(uid: String, generation: Int) async {
        var startedAt = self.clock()
        let started = ContinuousClock.now
        if let shared = self.shared, let state = await shared.load(uid: uid), startedAt - state.fetchedAt < self.rule.settings.maxAge {
            // Another replica looked the user up within the max age: its answer, as old as it is.
            self.shards[self.shard(uid)].entries.withLock { entries in
                var entry = entries[uid] ?? Entry()
                entry.inFlight = nil
                if entry.generation == generation {
                    entry.known = state
                    entry.lastFailureAt = nil
                }
                entries[uid] = entry
            }
            self.metrics.sharedHit()
            return
        }
        startedAt = self.clock()
        let result: Result<UserAccountState, AccountLookupError>
        do throws(AccountLookupError) {
            result = .success(try await self.lookup.lookup(uid: uid))
        } catch {
            result = .failure(error)
        }
        let duration = ContinuousClock.now - started
        let endedAt = self.clock()
        self.shards[self.shard(uid)].entries.withLock { entries in
            var entry = entries[uid] ?? Entry()
            entry.inFlight = nil
            if entry.generation == generation {
                switch result {
                case .success(let state):
                    entry.known = CachedAccountState(state: state, fetchedAt: startedAt)
                    entry.lastFailureAt = nil
                case .failure:
                    entry.lastFailureAt = endedAt
                }
            }
            entries[uid] = entry
        }
        switch result {
        case .success(let state):
            self.metrics.lookedUp(result: Self.label(state), duration: duration)
            await self.shared?.save(CachedAccountState(state: state, fetchedAt: startedAt), uid: uid)
        case .failure(let error):
            self.metrics.lookedUp(result: error.shortDescription, duration: duration)
            self.logger.warning(
                "revocation lookup failed",
                metadata: ["error": "\(error)", "failure_policy": "\(self.rule.settings.failurePolicy.rawValue)"]
            )
        }
    }

    private func stale(uid: String) {
        self.metrics.staleVerdict()
    }

    /// Makes room in a full shard: states past the max age go first, then any not being looked up.
    private func sweep(_ entries: inout [String: Entry]) {
        let now = self.clock()
        let maxAge = self.rule.settings.maxAge
        entries = entries.filter { _, entry in
            entry.inFlight != nil || (entry.known.map { now - $0.fetchedAt < maxAge } ?? false)
        }
        while entries.count >= self.maximumEntriesPerShard, let victim = entries.first(where: { $0.value.inFlight == nil })?.key {
            entries[victim] = nil
        }
    }

    static func label(_ state: UserAccountState) -> String {
        switch state {
        case .deleted: "deleted"
        case .active(disabled: true, _): "disabled"
        case .active: "active"
        }
    }
}
