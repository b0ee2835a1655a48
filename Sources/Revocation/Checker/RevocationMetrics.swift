public import CoreMetrics
import Synchronization

/// What ``RevocationChecker`` counts, through swift-metrics (the caller chooses the backend):
///
/// - `storygate_revocation_lookups_total{result}`: lookups by result (`active`, `disabled`, `deleted`, or the
///   failure: `credentials`, `unreachable`, `refused`, `invalid_response`).
/// - `storygate_revocation_cache_hits_total`: verdicts from a fresh cached state.
/// - `storygate_revocation_shared_hits_total`: states taken from another replica (Redis) instead of a lookup.
/// - `storygate_revocation_stale_verdicts_total{policy}`: verdicts without a fresh state after a failed lookup.
/// - `storygate_revocation_lookup_duration_seconds`: one lookup, access token included.
/// - `storygate_revocation_oldest_state_age_seconds`: the age of the oldest state a verdict rested on in the
///   latest ten-second window.
public final class RevocationMetrics: Sendable {
    /// The families, for `# HELP` lines.
    public static let help: [String: String] = [
        "storygate_revocation_lookups_total": "Revocation lookups of a user's state at Identity Toolkit, by result (the state, or the failure).",
        "storygate_revocation_cache_hits_total": "Revocation verdicts from a fresh cached user state.",
        "storygate_revocation_shared_hits_total": "User states another replica looked up, taken from Redis instead of a lookup.",
        "storygate_revocation_stale_verdicts_total": "Revocation verdicts without a fresh user state after a failed lookup, by failure policy.",
        "storygate_revocation_lookup_duration_seconds": "Revocation lookups at Identity Toolkit, access token included.",
        "storygate_revocation_oldest_state_age_seconds": "Age of the oldest user state a revocation verdict rested on, in the latest ten-second window.",
    ]

    static let window: Double = 10

    private let factory: any MetricsFactory
    private let cacheHits: Counter
    private let oldestAge: Gauge
    private let staleVerdicts: Counter
    private let oldest = Mutex<(windowStart: Double, age: Double)>((0, 0))
    /// The window's start and largest age so far, readable without the lock: most verdicts change neither, and the
    /// check runs on every request.
    private let windowEnd = Atomic<UInt64>(0)
    private let windowAge = Atomic<UInt64>(0)

    public init(factory: any MetricsFactory, policy: RevocationFailurePolicy) {
        self.factory = factory
        self.cacheHits = Counter(label: "storygate_revocation_cache_hits_total", factory: factory)
        self.oldestAge = Gauge(label: "storygate_revocation_oldest_state_age_seconds", factory: factory)
        self.staleVerdicts = Counter(label: "storygate_revocation_stale_verdicts_total", dimensions: [("policy", policy.rawValue)], factory: factory)
    }

    func cacheHit() { self.cacheHits.increment() }

    func sharedHit() { Counter(label: "storygate_revocation_shared_hits_total", factory: self.factory).increment() }

    func staleVerdict() { self.staleVerdicts.increment() }

    /// A verdict rested on a state `age` seconds old at `now`.
    func served(stateAge age: Double, now: Double) {
        if now < Double(bitPattern: self.windowEnd.load(ordering: .relaxed)), age <= Double(bitPattern: self.windowAge.load(ordering: .relaxed)) {
            return
        }
        let flush: Double? = self.oldest.withLock { oldest in
            defer {
                self.windowEnd.store((oldest.windowStart + Self.window).bitPattern, ordering: .relaxed)
                self.windowAge.store(oldest.age.bitPattern, ordering: .relaxed)
            }
            if now - oldest.windowStart >= Self.window {
                let previous = oldest.age
                oldest = (now, age)
                return max(previous, age)
            }
            if age > oldest.age {
                oldest.age = age
                return age
            }
            return nil
        }
        if let flush { self.oldestAge.record(flush) }
    }

    func lookedUp(result: String, duration: Duration) {
        Counter(label: "storygate_revocation_lookups_total", dimensions: [("result", result)], factory: self.factory).increment()
        let (seconds, attoseconds) = duration.components
        Timer(label: "storygate_revocation_lookup_duration_seconds", factory: self.factory)
            .recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
