/// What a store holds for one ``IdempotencyScope``, and the rules every store applies to it (the in-memory store
/// here, the Redis store in one Lua script with the same outcomes). Pure: the time is an input.
public enum IdempotencyRecord: Sendable, Equatable {
    /// A run holds the key until `leaseEnds` (seconds since 1970), renewed while it runs. `owner` names that run.
    case running(fingerprint: RequestFingerprint, owner: String, leaseEnds: Double)
    /// The run's 2xx answer, kept for replays.
    case completed(fingerprint: RequestFingerprint, answer: StoredAnswer)
    /// The run ended with another answer: the key is free again, and the answer stays a few seconds only so that the
    /// requests that joined the run get it.
    case released(fingerprint: RequestFingerprint, answer: StoredAnswer)

    /// How long a released record stays for the requests that joined its run.
    public static let releasedSeconds = 10.0

    /// The outcome of `begin` on `record` (nil: none), and the record to store (nil: leave it as it is).
    public static func begin(
        _ record: IdempotencyRecord?, fingerprint: RequestFingerprint, owner: String, now: Double, lease: Double
    ) -> (IdempotencyBegin, store: IdempotencyRecord?) {
        let start = IdempotencyRecord.running(fingerprint: fingerprint, owner: owner, leaseEnds: now + lease)
        switch record {
        case nil, .released:
            return (.started, start)
        case .running(let held, _, let leaseEnds):
            // A run whose lease lapsed (its replica died) no longer holds the key.
            if leaseEnds <= now { return (.started, start) }
            return (held == fingerprint ? .inFlight : .mismatch, nil)
        case .completed(let held, let answer):
            return (held == fingerprint ? .replay(answer) : .mismatch, nil)
        }
    }

    /// The record after `owner`'s run ends with `answer`: completed for a 2xx, else released. Nil when `owner` no
    /// longer holds the key (its lease lapsed and another run took it): nothing is written.
    public static func end(_ record: IdempotencyRecord?, owner: String, answer: StoredAnswer) -> IdempotencyRecord? {
        guard case .running(let fingerprint, let holder, _) = record, holder == owner else { return nil }
        return answer.isSuccess ? .completed(fingerprint: fingerprint, answer: answer) : .released(fingerprint: fingerprint, answer: answer)
    }

    /// The record with `owner`'s lease renewed until `leaseEnds`; nil when `owner` no longer holds it.
    public static func renew(_ record: IdempotencyRecord?, owner: String, leaseEnds: Double) -> IdempotencyRecord? {
        guard case .running(let fingerprint, let holder, _) = record, holder == owner else { return nil }
        return .running(fingerprint: fingerprint, owner: owner, leaseEnds: leaseEnds)
    }

    /// What a request that joined a run sees in `record` (for `fingerprint`).
    public static func joined(_ record: IdempotencyRecord?, fingerprint: RequestFingerprint, now: Double) -> IdempotencyWait? {
        switch record {
        case nil: return .free
        case .running(_, _, let leaseEnds): return leaseEnds <= now ? .free : nil
        case .completed(let held, let answer), .released(let held, let answer): return held == fingerprint ? .answered(answer) : .free
        }
    }
}

/// What ``IdempotencyStore/begin(_:fingerprint:owner:lease:)`` found.
public enum IdempotencyBegin: Sendable, Equatable {
    /// No run holds the key: this request's run holds it now, and must end it (``IdempotencyStore/end(_:owner:answer:keepFor:)``).
    case started
    /// A run with the same fingerprint ended with this 2xx answer.
    case replay(StoredAnswer)
    /// A run with the same fingerprint is under way.
    case inFlight
    /// The key is held for another fingerprint.
    case mismatch
}

/// What a request that joined a run got.
public enum IdempotencyWait: Sendable, Equatable {
    /// The run's answer.
    case answered(StoredAnswer)
    /// The key is free (the record is gone, or its run's lease lapsed): begin again.
    case free
    /// The run had not ended by the deadline.
    case timedOut
}

/// Idempotency records, in memory or shared through Redis. Every method applies ``IdempotencyRecord``'s rules
/// atomically.
public protocol IdempotencyStore: Sendable {
    /// Takes the key for a run of `fingerprint`, or says why not.
    func begin(_ scope: IdempotencyScope, fingerprint: RequestFingerprint, owner: String, lease: Duration) async throws(GenerationStoreError)
        -> IdempotencyBegin
    /// Extends the lease of `owner`'s run; false when it no longer holds the key.
    func renew(_ scope: IdempotencyScope, owner: String, lease: Duration) async throws(GenerationStoreError) -> Bool
    /// Ends `owner`'s run with `answer`: a 2xx is kept `keepFor`, any other answer frees the key.
    func end(_ scope: IdempotencyScope, owner: String, answer: StoredAnswer, keepFor: Duration) async throws(GenerationStoreError)
    /// Waits for the run that holds the key to end, until `deadline`.
    func wait(_ scope: IdempotencyScope, fingerprint: RequestFingerprint, until deadline: ContinuousClock.Instant) async throws(GenerationStoreError)
        -> IdempotencyWait
}
