import Synchronization

/// Jobs in this process, for a gateway without Redis: lost on restart. Records are kept `retention` after their
/// creation; the queue is first in, first out.
public final class InMemoryJobQueue: JobQueue {
    private struct State {
        var jobs: [String: JobRecord] = [:]
        /// Ids waiting to be taken, oldest first (a cancelled one is skipped when met).
        var queue: [String] = []
        var queueStart = 0
        /// Ids by creation, oldest first, for listing and retention.
        var created: [String] = []
        /// Workers waiting for a job, and requests waiting for a job's status to change.
        var idleWorkers: [Wakeup] = []
        var watchers: [String: [Wakeup]] = [:]
    }

    private let state = Mutex(State())
    private let retention: Double
    private let now: @Sendable () -> Double

    /// - Parameters:
    ///   - retention: how long a job's record is kept after its creation, in seconds.
    ///   - now: the wall clock, seconds since 1970.
    public init(retention: Double, now: @escaping @Sendable () -> Double) {
        self.retention = retention
        self.now = now
    }

    public func create(_ job: JobRecord, maxQueued: Int) throws(GenerationStoreError) {
        let now = self.now()
        let workers = try self.state.withLock { state throws(GenerationStoreError) -> [Wakeup] in
            self.dropExpired(&state, now: now)
            guard state.queue.count - state.queueStart < maxQueued else { throw .full }
            state.jobs[job.id] = job
            state.queue.append(job.id)
            state.created.append(job.id)
            // Every idle worker looks: one takes it, the others wait again.
            defer { state.idleWorkers = [] }
            return state.idleWorkers
        }
        for worker in workers { worker.signal() }
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
        let (job, watchers) = self.state.withLock { state -> (JobRecord?, [Wakeup]) in
            guard var job = state.jobs[id], job.userHash == userHash else { return (nil, []) }
            guard !job.status.isFinal else { return (job, []) }
            job.status = .cancelled
            job.finishedAt = now
            state.jobs[id] = job
            return (job, state.watchers.removeValue(forKey: id) ?? [])
        }
        for watcher in watchers { watcher.signal() }
        return job
    }

    public func take(consumer: String, lease: Duration, wait: Duration, now: Double) async -> TakenJob? {
        let deadline = ContinuousClock.now + wait
        while true {
            let (taken, watchers) = self.state.withLock { state -> (TakenJob?, [Wakeup]) in
                while state.queueStart < state.queue.count {
                    let id = state.queue[state.queueStart]
                    state.queueStart += 1
                    guard var job = state.jobs[id], job.status == .queued else { continue }
                    job.status = .running
                    job.startedAt = max(job.createdAt, self.now())
                    job.attempts += 1
                    state.jobs[id] = job
                    return (TakenJob(job: job, reclaimed: false, receipt: id), state.watchers.removeValue(forKey: id) ?? [])
                }
                state.queue.removeAll(keepingCapacity: true)
                state.queueStart = 0
                return (nil, [])
            }
            for watcher in watchers { watcher.signal() }
            if let taken { return taken }
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return nil }
            await self.sleep(until: deadline) { state, wakeup in state.idleWorkers.append(wakeup) }
        }
    }

    public func keepRunning(_ taken: TakenJob, consumer: String, lease: Duration) -> Bool {
        self.state.withLock { $0.jobs[taken.job.id]?.status == .running }
    }

    public func finish(_ taken: TakenJob, status: JobStatus, answer: StoredAnswer, now: Double) {
        let watchers = self.state.withLock { state -> [Wakeup] in
            guard var job = state.jobs[taken.job.id], job.status == .running else { return [] }
            job.status = status
            job.answer = answer
            job.finishedAt = now
            state.jobs[job.id] = job
            return state.watchers.removeValue(forKey: job.id) ?? []
        }
        for watcher in watchers { watcher.signal() }
    }

    public func depth() -> Int {
        self.state.withLock { state in
            state.queue[state.queueStart...].reduce(0) { $0 + (state.jobs[$1]?.status == .queued ? 1 : 0) }
        }
    }

    public func wait(id: String, userHash: String, seen: JobStatus, until deadline: ContinuousClock.Instant) async -> JobRecord? {
        while true {
            guard let job = self.job(id: id, userHash: userHash) else { return nil }
            if job.status != seen || ContinuousClock.now >= deadline || Task.isCancelled { return job }
            await self.sleep(until: deadline) { state, wakeup in state.watchers[id, default: []].append(wakeup) }
        }
    }

    /// Parks the caller, registered by `register`, until woken or `deadline`.
    private func sleep(until deadline: ContinuousClock.Instant, register: (inout State, Wakeup) -> Void) async {
        let wakeup = Wakeup()
        self.state.withLock { register(&$0, wakeup) }
        await wakeup.wait(until: deadline)
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
