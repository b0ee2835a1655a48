import Synchronization

/// Jobs in this process, for a gateway without Redis: lost on restart. Records are kept `retention` after their
/// creation; the queue is first in, first out. A running job's worker holds a lease, renewed by `keepRunning`; a job
/// whose lease lapsed (its worker stalled) is taken again, as in Redis.
public final class InMemoryJobQueue: JobQueue {
    private struct Lease {
        var consumer: String
        var ends: ContinuousClock.Instant
    }

    private struct State {
        var jobs: [String: JobRecord] = [:]
        /// Ids waiting to be taken, oldest first (a cancelled one is skipped when met).
        var queue: [String] = []
        var queueStart = 0
        /// Jobs queued and not taken yet: the depth, and what `maxQueued` bounds.
        var waiting = 0
        /// The leases of running jobs, by id.
        var leases: [String: Lease] = [:]
        /// Ids by creation, oldest first, for listing and retention.
        var created: [String] = []
    }

    private let state = Mutex(State())
    private let retention: Double
    private let now: @Sendable () -> Double
    /// Workers waiting for a job (one key), and requests waiting for a job's status to change (by id).
    private let idleWorkers = WakeupRegistry<Int>()
    private let watchers = WakeupRegistry<String>()

    /// - Parameters:
    ///   - retention: how long a job's record is kept after its creation, in seconds.
    ///   - now: the wall clock, seconds since 1970.
    public init(retention: Double, now: @escaping @Sendable () -> Double) {
        self.retention = retention
        self.now = now
    }

    public func create(_ job: JobRecord, maxQueued: Int) throws(GenerationStoreError) {
        let now = self.now()
        try self.state.withLock { state throws(GenerationStoreError) in
            self.dropExpired(&state, now: now)
            guard state.waiting < maxQueued else { throw .full }
            state.jobs[job.id] = job
            state.queue.append(job.id)
            state.waiting += 1
            state.created.append(job.id)
        }
        // Every idle worker looks: one takes it, the others wait again.
        self.idleWorkers.signal(0)
    }

    public func job(id: String, userHash: String) -> JobRecord? {
        let now = self.now()
        return self.state.withLock { state in
            self.dropExpired(&state, now: now)
            return state.jobs[id].flatMap { $0.userHash == userHash ? $0 : nil }
        }
    }

    public func jobs(userHash: String, after cursor: String?, limit: Int) -> JobPage {
        let now = self.now()
        return self.state.withLock { state in
            self.dropExpired(&state, now: now)
            var page: [JobRecord] = []
            var passedCursor = cursor == nil
            for id in state.created.reversed() {
                guard let job = state.jobs[id], job.userHash == userHash else { continue }
                if !passedCursor {
                    passedCursor = id == cursor
                    continue
                }
                if page.count == limit { return JobPage(jobs: page, next: page.last?.id) }
                page.append(job)
            }
            return JobPage(jobs: page, next: nil)
        }
    }

    public func cancel(id: String, userHash: String, now: Double) -> JobRecord? {
        let (job, changed) = self.state.withLock { state -> (JobRecord?, Bool) in
            guard var job = state.jobs[id], job.userHash == userHash else { return (nil, false) }
            guard !job.status.isFinal else { return (job, false) }
            if job.status == .queued { state.waiting -= 1 }
            job.status = .cancelled
            job.finishedAt = now
            state.jobs[id] = job
            state.leases[id] = nil
            return (job, true)
        }
        if changed { self.watchers.signal(id) }
        return job
    }

    public func take(consumer: String, lease: Duration, wait: Duration, now: Double) async -> TakenJob? {
        let start = ContinuousClock.now
        let deadline = start + wait
        var waited = Duration.zero
        while true {
            let wakeup = self.idleWorkers.register(0)
            defer { self.idleWorkers.remove(wakeup, for: 0) }
            // A job taken after a wait starts that much later than `now`.
            let (taken, nextLapse) = self.state.withLock { state in
                Self.takeNext(&state, consumer: consumer, lease: lease, now: now + waited.seconds)
            }
            if let taken {
                self.watchers.signal(taken.job.id)
                return taken
            }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return nil }
            // Woken by a create, or when a running job's lease lapses.
            await wakeup.wait(until: min(deadline, nextLapse ?? deadline))
            waited = ContinuousClock.now - start
        }
    }

    /// A running job whose lease lapsed (reclaimed), else the next queued one; and when the next lease lapses.
    private static func takeNext(_ state: inout State, consumer: String, lease: Duration, now: Double) -> (TakenJob?, ContinuousClock.Instant?) {
        let clock = ContinuousClock.now
        let lapsed = state.leases.filter { $0.value.ends <= clock }.min { $0.value.ends < $1.value.ends }
        if let (id, _) = lapsed {
            if var job = state.jobs[id], job.status == .running {
                job.startedAt = now
                job.attempts += 1
                state.jobs[id] = job
                state.leases[id] = Lease(consumer: consumer, ends: clock + lease)
                return (TakenJob(job: job, reclaimed: true, receipt: id), nil)
            }
            state.leases[id] = nil
        }
        while state.queueStart < state.queue.count {
            let id = state.queue[state.queueStart]
            state.queueStart += 1
            guard var job = state.jobs[id], job.status == .queued else { continue }
            job.status = .running
            job.startedAt = now
            job.attempts += 1
            state.jobs[id] = job
            state.waiting -= 1
            state.leases[id] = Lease(consumer: consumer, ends: clock + lease)
            return (TakenJob(job: job, reclaimed: false, receipt: id), nil)
        }
        state.queue.removeAll(keepingCapacity: true)
        state.queueStart = 0
        return (nil, state.leases.values.map(\.ends).min())
    }

    public func keepRunning(_ taken: TakenJob, consumer: String, lease: Duration) -> Bool {
        self.state.withLock { state in
            let id = taken.job.id
            guard state.jobs[id]?.status == .running, state.leases[id]?.consumer == consumer else { return false }
            state.leases[id]?.ends = .now + lease
            return true
        }
    }

    public func finish(_ taken: TakenJob, status: JobStatus, answer: StoredAnswer, now: Double) {
        let changed = self.state.withLock { state -> Bool in
            guard var job = state.jobs[taken.job.id], job.status == .running else { return false }
            job.status = status
            job.answer = answer
            job.finishedAt = now
            state.jobs[job.id] = job
            state.leases[job.id] = nil
            return true
        }
        if changed { self.watchers.signal(taken.job.id) }
    }

    public func depth() -> Int {
        self.state.withLock { $0.waiting }
    }

    public func wait(id: String, userHash: String, seen: JobStatus, until deadline: ContinuousClock.Instant) async -> JobRecord? {
        while true {
            let wakeup = self.watchers.register(id)
            defer { self.watchers.remove(wakeup, for: id) }
            guard let job = self.job(id: id, userHash: userHash) else { return nil }
            if job.status != seen || ContinuousClock.now >= deadline || Task.isCancelled { return job }
            await wakeup.wait(until: deadline)
        }
    }

    private func dropExpired(_ state: inout State, now: Double) {
        var index = 0
        while index < state.created.count, let job = state.jobs[state.created[index]], job.createdAt + self.retention <= now, job.status.isFinal {
            state.jobs[state.created[index]] = nil
            index += 1
        }
        if index > 0 { state.created.removeFirst(index) }
    }
}
