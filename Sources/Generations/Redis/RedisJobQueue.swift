public import RateLimiting

/// Jobs in Redis, shared by every replica: the queue is a Redis Stream with one consumer group that every replica's
/// workers read, the records are hashes kept `retention` after their creation.
///
/// Keys, placed for Redis Cluster: the stream `storygate:jobs:{<queue>}` and its waiting jobs (the depth) share the
/// queue's slot; a job's record `storygate:job:{<user hash>}:<id>` and the user's index `storygate:jobs:{<user hash>}`
/// (a sorted set by creation time) share the user's slot. Each script touches one slot (`JobScripts`); an operation
/// on both (create, take, cancel, finish) is one script per slot, in an order that a failure between them leaves
/// safe: a taken entry whose record is gone or ended is acknowledged and skipped.
///
/// A worker's lease is the stream entry's idle time: `keepRunning` resets it, and an entry idle longer than a
/// taker's `lease` is claimed by it (`TakenJob.reclaimed`), so every worker should take with the same lease. Nothing blocks a connection: workers and waiters in this
/// process are woken at once by a change this process makes, and poll for the others' changes.
///
/// It sends on a `RedisRateLimitStore`'s connections (`RedisRateLimitStore.commands`): that store's `run()` keeps
/// them up.
public final class RedisJobQueue: JobQueue {
    /// Every key, its type and its default.
    public struct Configuration: Sendable {
        /// How long a job's record is kept after its creation. Required.
        public var retention: Duration
        /// The queue's name, the hash tag of its keys (`storygate:jobs:{<queue>}`); no braces. Default `queue`.
        public var queue = "queue"
        /// How long one round trip to Redis may take. Default 1 s.
        public var timeout: Duration = .seconds(1)
        /// How often an idle worker or a waiting request looks again for a change made by another replica.
        /// Default 100 ms.
        public var pollInterval: Duration = .milliseconds(100)

        /// A configuration with `retention` and every other key at its default.
        public init(retention: Duration) {
            self.retention = retention
        }
    }

    /// The consumer group every replica's workers read.
    public static let group = "storygate-workers"

    private let redis: RedisStoreClient
    private let configuration: Configuration
    private let streamKey: String
    private let waitingKey: String
    private let idleWorkers = WakeupRegistry<String>()
    private let watchers = WakeupRegistry<String>()

    /// A queue on `commands` (`RedisRateLimitStore.commands`); connects nothing of its own.
    public init(commands: RedisCommands, configuration: Configuration) {
        precondition(
            configuration.retention > .zero && configuration.timeout > .zero && configuration.pollInterval > .zero, "durations must be positive"
        )
        precondition(!configuration.queue.isEmpty && !configuration.queue.contains { $0 == "{" || $0 == "}" }, "a queue name is a hash tag")
        self.redis = RedisStoreClient(commands: commands, timeout: configuration.timeout)
        self.configuration = configuration
        self.streamKey = "storygate:jobs:{\(configuration.queue)}"
        self.waitingKey = self.streamKey + ":waiting"
    }

    /// The hash of a user's job.
    public static func recordKey(id: String, userHash: String) -> String { "storygate:job:{\(userHash)}:\(id)" }

    /// The sorted set of a user's job ids by creation time.
    public static func indexKey(userHash: String) -> String { "storygate:jobs:{\(userHash)}" }

    public func create(_ job: JobRecord, maxQueued: Int) async throws(GenerationStoreError) {
        let record = Self.recordKey(id: job.id, userHash: job.userHash)
        let index = Self.indexKey(userHash: job.userHash)
        let retention = self.configuration.retention
        _ = try await self.redis.run(
            JobScripts.create, keys: [record, index],
            [
                RedisArgument(retention.wholeMilliseconds), RedisArgument(JobHash.time(job.createdAt)),
                RedisArgument(JobHash.time(job.createdAt - retention.seconds)), RedisArgument(job.id),
            ] + JobHash.fields(of: job)
        )
        let entry: RESPValue
        do {
            entry = try await self.redis.run(
                JobScripts.enqueue, keys: [self.streamKey, self.waitingKey],
                [RedisArgument(Self.group), RedisArgument(max(0, maxQueued)), RedisArgument(job.id), RedisArgument(job.userHash)]
            )
        } catch {
            // No record of a job that may not be queued (had it been, a worker skips it: its record is gone).
            _ = try? await self.redis.run(JobScripts.remove, keys: [record, index], [RedisArgument(job.id)])
            throw error
        }
        if entry.isNull {
            _ = try await self.redis.run(JobScripts.remove, keys: [record, index], [RedisArgument(job.id)])
            throw .full
        }
        self.idleWorkers.signal(self.streamKey)
    }

    public func job(id: String, userHash: String) async throws(GenerationStoreError) -> JobRecord? {
        let record = Self.recordKey(id: id, userHash: userHash)
        let job = try JobHash.record(try await self.redis.send(["HGETALL", RedisArgument(record)], key: record))
        return job?.userHash == userHash ? job : nil
    }

    public func jobs(userHash: String, after cursor: String?, limit: Int) async throws(GenerationStoreError) -> JobPage {
        let limit = max(0, limit)
        let index = Self.indexKey(userHash: userHash)
        var page: [JobRecord] = []
        var after = cursor ?? ""
        // One more than the page, to tell whether there is a next one; ids whose record is gone are dropped on the way.
        while page.count <= limit {
            let wanted = limit + 1 - page.count
            let ids = try await self.redis.run(JobScripts.page, keys: [index], [RedisArgument(after), RedisArgument(wanted)]).array ?? []
            let names = ids.compactMap(\.string)
            guard !names.isEmpty else { break }
            let keys = names.map { Self.recordKey(id: $0, userHash: userHash) }
            let records = try await self.redis.run(JobScripts.records, keys: keys, []).array ?? []
            var gone: [RedisArgument] = []
            for (name, reply) in zip(names, records) {
                if let job = try JobHash.record(reply), job.userHash == userHash {
                    page.append(job)
                } else {
                    gone.append(RedisArgument(name))
                }
            }
            if !gone.isEmpty { _ = try await self.redis.send(["ZREM", RedisArgument(index)] + gone, key: index) }
            after = names[names.count - 1]
            if names.count < wanted { break }
        }
        guard page.count > limit else { return JobPage(jobs: page, next: nil) }
        page.removeLast(page.count - limit)
        return JobPage(jobs: page, next: page.last?.id)
    }

    public func cancel(id: String, userHash: String, now: Double) async throws(GenerationStoreError) -> JobRecord? {
        let record = Self.recordKey(id: id, userHash: userHash)
        let reply = try await self.redis.run(JobScripts.cancel, keys: [record], [RedisArgument(JobHash.time(now))])
        guard !reply.isNull else { return nil }
        guard let parts = reply.array, parts.count == 2, let before = parts[0].string, let job = try JobHash.record(parts[1]) else {
            throw .corrupt.with(detail: "unexpected job cancel reply")
        }
        if before == JobStatus.queued.rawValue {
            // Not taken yet: out of the queue (a worker that takes it meanwhile skips it, as cancelled).
            _ = try await self.redis.run(JobScripts.withdraw, keys: [self.streamKey, self.waitingKey], [RedisArgument(id)])
        }
        if before != job.status.rawValue { self.watchers.signal(id) }
        return job
    }

    public func take(consumer: String, lease: Duration, wait: Duration, now: Double) async throws(GenerationStoreError) -> TakenJob? {
        let start = ContinuousClock.now
        let deadline = start + wait
        var waited = Duration.zero
        while true {
            // Registered before the look: a create in this process between the two still wakes this worker.
            let wakeup = self.idleWorkers.register(self.streamKey)
            defer { self.idleWorkers.remove(wakeup, for: self.streamKey) }
            // A job taken after a wait starts that much later than `now`.
            if let taken = try await self.takeWaiting(consumer: consumer, lease: lease, now: now + waited.seconds) { return taken }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return nil }
            await wakeup.wait(until: min(deadline, .now + self.configuration.pollInterval))
            waited = ContinuousClock.now - start
        }
    }

    /// The next entry that is not skipped, marked running; nil when none waits.
    private func takeWaiting(consumer: String, lease: Duration, now: Double) async throws(GenerationStoreError) -> TakenJob? {
        while true {
            let reply = try await self.redis.run(
                JobScripts.take, keys: [self.streamKey, self.waitingKey],
                [RedisArgument(Self.group), RedisArgument(consumer), RedisArgument(lease.wholeMilliseconds)]
            )
            if reply.isNull { return nil }
            guard let parts = reply.array, parts.count == 4, let receipt = parts[0].string, let id = parts[1].string,
                let userHash = parts[2].string, let reclaimed = parts[3].integer
            else { throw .corrupt.with(detail: "unexpected job take reply") }
            let record = Self.recordKey(id: id, userHash: userHash)
            let started = try await self.redis.run(JobScripts.start, keys: [record], [RedisArgument(JobHash.time(now))])
            if !started.isNull, let job = try JobHash.record(started) {
                self.watchers.signal(id)
                return TakenJob(job: job, reclaimed: reclaimed == 1, receipt: receipt)
            }
            // Cancelled, ended, or past its retention: nothing to run.
            try await self.acknowledge(receipt)
        }
    }

    public func keepRunning(_ taken: TakenJob, consumer: String, lease: Duration) async throws(GenerationStoreError) -> Bool {
        let record = Self.recordKey(id: taken.job.id, userHash: taken.job.userHash)
        let status = try await self.redis.send(["HGET", RedisArgument(record), "status"], key: record)
        guard status.string == JobStatus.running.rawValue else { return false }
        let kept = try await self.redis.run(
            JobScripts.keep, keys: [self.streamKey], [RedisArgument(Self.group), RedisArgument(consumer), RedisArgument(taken.receipt)]
        )
        return kept.integer == 1
    }

    public func finish(_ taken: TakenJob, status: JobStatus, answer: StoredAnswer, now: Double) async throws(GenerationStoreError) {
        let record = Self.recordKey(id: taken.job.id, userHash: taken.job.userHash)
        let written = try await self.redis.run(
            JobScripts.finish, keys: [record],
            [RedisArgument(status.rawValue), RedisArgument(bytes: answer.encoded()), RedisArgument(JobHash.time(now))]
        )
        try await self.acknowledge(taken.receipt)
        if written.integer == 1 { self.watchers.signal(taken.job.id) }
    }

    public func depth() async throws(GenerationStoreError) -> Int {
        let reply = try await self.redis.send(["HLEN", RedisArgument(self.waitingKey)], key: self.waitingKey)
        guard let count = reply.integer else { throw .corrupt.with(detail: "unexpected HLEN reply") }
        return Int(count)
    }

    public func wait(id: String, userHash: String, seen: JobStatus, until deadline: ContinuousClock.Instant) async throws(GenerationStoreError)
        -> JobRecord?
    {
        while true {
            // Registered before the read: a change in this process between the two still wakes this waiter.
            let wakeup = self.watchers.register(id)
            defer { self.watchers.remove(wakeup, for: id) }
            guard let job = try await self.job(id: id, userHash: userHash) else { return nil }
            if job.status != seen || ContinuousClock.now >= deadline || Task.isCancelled { return job }
            await wakeup.wait(until: min(deadline, .now + self.configuration.pollInterval))
        }
    }

    /// Workers and status waiters parked in this process (for tests).
    var waiterCount: Int { self.idleWorkers.count + self.watchers.count }

    private func acknowledge(_ receipt: String) async throws(GenerationStoreError) {
        _ = try await self.redis.run(JobScripts.acknowledge, keys: [self.streamKey], [RedisArgument(Self.group), RedisArgument(receipt)])
    }
}
