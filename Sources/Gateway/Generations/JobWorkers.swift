import GatewayConfig
import Generations
import IDTokens
import Logging
import Prometheus
import ServiceLifecycle
import StoryFunctions
import Synchronization

/// This replica's job workers (`JOB_WORKERS`): each takes the next job from the queue (any replica's, or one whose
/// worker's lease lapsed), runs its function as its owner, renews its lease while it runs, stops it when the job is
/// cancelled, and keeps its answer. On graceful shutdown no new job is taken and the running ones finish; a job
/// left unfinished (a replica killed) is taken again by another replica once its lease lapses: at least once.
final class JobWorkers: Service, Sendable {
    private let stores: GenerationStores
    private let settings: JobSettings
    /// The functions service now (a reload replaces it).
    private let service: @Sendable () -> StoryFunctionsService
    private let consumer: String
    private let logger: Logger
    private let running: RunningJobs
    /// Set when the gateway starts draining: no job is taken from then on.
    private let drain: DrainState

    init(
        stores: GenerationStores, settings: JobSettings, running: RunningJobs, drain: DrainState,
        service: @escaping @Sendable () -> StoryFunctionsService, logger: Logger
    ) {
        self.stores = stores
        self.drain = drain
        self.settings = settings
        self.running = running
        self.service = service
        self.consumer = "storygate-" + JobRecord.newID().prefix(12)
        self.logger = logger
    }

    func run() async throws {
        await withDiscardingTaskGroup { group in
            for _ in 0..<self.settings.workers {
                group.addTask { await self.work() }
            }
            group.addTask { await self.sampleDepth() }
        }
    }

    private var lease: Duration { .seconds(self.settings.leaseSeconds) }

    /// One worker: a job at a time until graceful shutdown.
    private func work() async {
        var failures = 0
        while !self.drain.isDraining, !Task.isShuttingDownGracefully, !Task.isCancelled {
            let taken: TakenJob?
            do {
                taken = try await self.stores.jobs.take(consumer: self.consumer, lease: self.lease, wait: .seconds(1), now: self.stores.now())
                failures = 0
            } catch {
                failures += 1
                // A store still connecting at start (a cluster's slot map not read yet) is not worth a line; one
                // that fails for a few seconds is.
                if failures == 5 { self.logger.warning("cannot take jobs", metadata: ["error": "\(error)"]) }
                try? await Task.sleep(for: .milliseconds(min(250 * failures, 2000)))
                continue
            }
            guard let taken else { continue }
            await self.execute(taken)
        }
    }

    private func execute(_ taken: TakenJob) async {
        let job = taken.job
        let metrics = self.stores.metrics
        if taken.reclaimed { metrics.job("reclaimed") }
        let started = self.stores.now()
        metrics.queueWait(job.function, .milliseconds(Int64(max(0, started - job.createdAt) * 1000)))
        guard let handler = BuiltinHandler(rawValue: job.function), let function = FunctionRoutes.function(handler) else {
            let error = GatewayError.internalError()
            await self.finish(taken, .failed, StoredAnswer(error, requestID: job.id, now: started))
            return
        }
        let (service, now) = (self.service(), self.stores.now)
        let caller = Caller(uid: job.uid, safetyIdentifier: UserHash.safetyIdentifier(job.uid))
        let task = Task(executorPreference: globalConcurrentExecutor) {
            do throws(FunctionError) {
                let json = try await function(service, job.request, caller)
                return StoredAnswer(status: 200, fields: [StoredAnswer.Field(name: "content-type", value: "application/json")], body: json)
            } catch {
                return StoredAnswer(GatewayError(error), requestID: job.id, now: now())
            }
        }
        self.running.add(job.id, task)
        defer { self.running.remove(job.id) }
        let clock = ContinuousClock()
        let start = clock.now
        // Renew the lease while the function runs; a cancelled job (false) stops it.
        let (jobs, consumer, lease) = (self.stores.jobs, self.consumer, self.lease)
        let answer = await whileRenewing(
            every: lease / 3, { (try? await jobs.keepRunning(taken, consumer: consumer, lease: lease)) != false }, stop: { task.cancel() }
        ) { await task.value }
        metrics.ran(job.function, start.duration(to: clock.now))
        // A cancelled job was counted by its DELETE; its answer is not kept.
        guard !task.isCancelled else { return }
        await self.finish(taken, answer.isSuccess ? .succeeded : .failed, answer)
    }

    private func finish(_ taken: TakenJob, _ status: JobStatus, _ answer: StoredAnswer) async {
        do {
            try await self.stores.jobs.finish(taken, status: status, answer: answer, now: self.stores.now())
            self.stores.metrics.job(status.rawValue)
        } catch {
            // Its lease lapses and another worker takes it again.
            self.logger.warning("cannot finish a job", metadata: ["error": "\(error)", "job_id": "\(taken.job.id)"])
        }
    }

    /// The queue's depth, every 5 s, for the gauge.
    private func sampleDepth() async {
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            if let depth = try? await self.stores.jobs.depth() { self.stores.metrics.queueDepth.set(to: Double(depth)) }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(5)) }
        }
    }
}

/// The jobs running on this replica, by id: a DELETE that comes here cancels its job's run at once.
final class RunningJobs: Sendable {
    private let tasks = Mutex<[String: Task<StoredAnswer, Never>]>([:])

    init() {}

    func add(_ id: String, _ task: Task<StoredAnswer, Never>) {
        self.tasks.withLock { $0[id] = task }
    }

    func remove(_ id: String) {
        _ = self.tasks.withLock { $0.removeValue(forKey: id) }
    }

    /// Cancels the job's run if it runs here; true when it did.
    func cancel(_ id: String) -> Bool {
        guard let task = self.tasks.withLock({ $0[id] }) else { return false }
        task.cancel()
        return true
    }
}
