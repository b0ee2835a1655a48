/// Asynchronous generation jobs (`jobs:` in the config file): how many run at once on this replica, how many may wait,
/// how long a job is kept, and the lease that hands a dead replica's job to another.
///
/// | key | variable | type | default |
/// |---|---|---|---|
/// | `jobs.workers` | `JOB_WORKERS` | 0...256 jobs run at once by this replica (0: it only creates jobs, others run them) | `4` |
/// | `jobs.queue_max` | `JOB_QUEUE_MAX` | 1...1000000 queued jobs; creating one more is 503 `QUEUE_FULL` | `1000` |
/// | `jobs.retention_seconds` | `JOB_RETENTION_SECONDS` | 60...2592000: how long a job and its result are kept after it is created | `86400` |
/// | `jobs.lease_seconds` | `JOB_LEASE_SECONDS` | 5...3600: a running job's lease, renewed while it runs; once it lapses another replica takes the job | `30` |
public struct JobSettings: Sendable, Equatable {
    /// Jobs this replica runs at once; 0: it takes none.
    public var workers = 4
    /// Queued jobs past which creating one is refused (503 `QUEUE_FULL`).
    public var queueMax = 1_000
    /// Seconds a job and its result are kept, counted from its creation.
    public var retentionSeconds = 86_400
    /// Seconds of a running job's lease.
    public var leaseSeconds = 30

    public init() {}
}
