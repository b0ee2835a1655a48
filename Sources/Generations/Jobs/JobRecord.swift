/// A job's status, as `GET /v1/jobs/<id>` names it.
public enum JobStatus: String, Sendable, Equatable, CaseIterable {
    case queued
    case running
    case succeeded
    case failed
    case cancelled

    /// Whether the job has ended (nothing changes it any more).
    public var isFinal: Bool { self == .succeeded || self == .failed || self == .cancelled }
}

/// One job: a function call made with `Prefer: respond-async`, run by any replica's workers, its answer kept.
public struct JobRecord: Sendable, Equatable {
    /// 32 lowercase hex digits (128 random bits).
    public var id: String
    /// The owner's pseudonym (``IdempotencyScope/userHash``): another user's job is not found.
    public var userHash: String
    /// The owner's uid, which the function runs as (it owns the media the call makes).
    public var uid: String
    /// The function's route name (`story-generation`, …).
    public var function: String
    public var status: JobStatus
    /// Seconds since 1970.
    public var createdAt: Double
    public var startedAt: Double?
    public var finishedAt: Double?
    /// The function's request body.
    public var request: [UInt8]
    /// The function's answer once the job has ended: a 2xx (`result`) or an error envelope (`error`).
    public var answer: StoredAnswer?
    /// How many times a worker took it (more than 1: reclaimed after its worker's lease lapsed).
    public var attempts: Int

    public init(
        id: String, userHash: String, uid: String, function: String, status: JobStatus = .queued, createdAt: Double,
        startedAt: Double? = nil, finishedAt: Double? = nil, request: [UInt8], answer: StoredAnswer? = nil, attempts: Int = 0
    ) {
        self.id = id
        self.userHash = userHash
        self.uid = uid
        self.function = function
        self.status = status
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.request = request
        self.answer = answer
        self.attempts = attempts
    }

    /// Whether `text` has a job id's form (so anything else is a 404 without a store lookup).
    public static func isJobID(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// A new random id.
    public static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return Self.hex(high) + Self.hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// A job a worker has taken: run it, keep its lease (``JobQueue/keepRunning(_:consumer:lease:)``), finish it.
public struct TakenJob: Sendable, Equatable {
    public var job: JobRecord
    /// Taken from a worker whose lease lapsed (its replica died or stalled): the function may run a second time.
    public var reclaimed: Bool
    /// The queue's own reference to the entry (a Redis Stream entry id), acknowledged when it finishes.
    public var receipt: String

    public init(job: JobRecord, reclaimed: Bool, receipt: String) {
        self.job = job
        self.reclaimed = reclaimed
        self.receipt = receipt
    }
}

/// A page of a user's jobs, newest first.
public struct JobPage: Sendable, Equatable {
    public var jobs: [JobRecord]
    /// Where the next page starts; nil on the last.
    public var next: String?

    public init(jobs: [JobRecord], next: String?) {
        self.jobs = jobs
        self.next = next
    }
}

/// Jobs: their records, kept `retention` after creation, and the queue the workers take them from — in process,
/// or a Redis Stream with a consumer group that every replica reads.
public protocol JobQueue: Sendable {
    /// Records `job` (queued) and queues it; `.full` when `maxQueued` jobs wait already.
    func create(_ job: JobRecord, maxQueued: Int) async throws(GenerationStoreError)
    /// The user's job, or nil (unknown, another user's, or past its retention).
    func job(id: String, userHash: String) async throws(GenerationStoreError) -> JobRecord?
    /// The user's jobs, newest first, `limit` at most, after `cursor` (a previous page's `next`).
    func jobs(userHash: String, after cursor: String?, limit: Int) async throws(GenerationStoreError) -> JobPage
    /// Cancels a queued or running job (a running one's worker sees it at its next ``keepRunning(_:consumer:lease:)``
    /// and stops); returns the record after, nil when there is no such job. An ended job is left as it is.
    func cancel(id: String, userHash: String, now: Double) async throws(GenerationStoreError) -> JobRecord?
    /// The next job for `consumer` to run, marked running, or nil when none waits (after waiting up to `wait` for
    /// one). A job whose worker's lease lapsed is taken again (``TakenJob/reclaimed``).
    func take(consumer: String, lease: Duration, wait: Duration, now: Double) async throws(GenerationStoreError) -> TakenJob?
    /// Renews the lease of a running job; false when it was cancelled (or is no longer this consumer's): stop it.
    func keepRunning(_ taken: TakenJob, consumer: String, lease: Duration) async throws(GenerationStoreError) -> Bool
    /// Ends a taken job with `status` and `answer` (unless it was cancelled meanwhile) and acknowledges it.
    func finish(_ taken: TakenJob, status: JobStatus, answer: StoredAnswer, now: Double) async throws(GenerationStoreError)
    /// Jobs waiting to be taken.
    func depth() async throws(GenerationStoreError) -> Int
    /// Waits until the job's status is other than `seen`, or `deadline`: the record then (nil: no such job).
    func wait(id: String, userHash: String, seen: JobStatus, until deadline: ContinuousClock.Instant) async throws(GenerationStoreError)
        -> JobRecord?
}
