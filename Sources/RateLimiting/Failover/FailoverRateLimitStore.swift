public import Logging
public import NIOCore
import Synchronization

/// Redis first; when the primary store fails, apply the policy.
///
/// - `failOpen` (the default in the gateway): decide with a local in-memory bucket instead, so an outage
///   degrades the fleet-wide limit to a per-replica one rather than rejecting every request.
/// - `failClosed`: rethrow the primary's error; the gateway answers 503.
///
/// Each failure is counted; a warning is logged at most once per `warningInterval` seconds.
public final class FailoverRateLimitStore: RateLimitStore, Sendable {
    /// What to do when the primary store cannot decide.
    public enum Policy: String, Sendable {
        /// Decide with the local fallback bucket.
        case failOpen = "open"
        /// Throw the primary's error.
        case failClosed = "closed"
    }

    /// What this store does when the primary fails.
    public let policy: Policy
    private let primary: any RateLimitStore
    private let fallback: InMemoryRateLimitStore
    private let logger: Logger
    private let warningInterval: Double
    private let fallbacks = Atomic<Int>(0)
    private let failures = Atomic<Int>(0)
    /// Monotonic milliseconds of the last warning, or `Int.min` before the first one.
    private let lastWarning = Atomic<Int>(Int.min)

    /// - Parameters:
    ///   - primary: the shared store, usually `RedisRateLimitStore`.
    ///   - fallback: the local buckets used when failing open.
    ///   - policy: `.failOpen` or `.failClosed`.
    ///   - logger: receives the rate-limited warnings.
    ///   - warningInterval: at most one warning per this many seconds; default 5.
    public init(
        primary: any RateLimitStore,
        fallback: InMemoryRateLimitStore,
        policy: Policy,
        logger: Logger,
        warningInterval: Double = 5
    ) {
        self.primary = primary
        self.fallback = fallback
        self.policy = policy
        self.logger = logger
        self.warningInterval = warningInterval
    }

    /// Checks answered by the fallback because the primary failed.
    public var fallbackCount: Int { self.fallbacks.load(ordering: .relaxed) }
    /// Checks on which the primary failed, whatever the policy.
    public var failureCount: Int { self.failures.load(ordering: .relaxed) }

    /// Asks the primary; on its error counts the failure, warns (rate-limited) and applies `policy`.
    public func check(_ limit: RateLimit, key: String, cost: Double) async throws(RateLimitStoreError) -> RateLimitDecision {
        do {
            return try await self.primary.check(limit, key: key, cost: cost)
        } catch {
            self.failures.add(1, ordering: .relaxed)
            self.warnIfDue(error)
            switch self.policy {
            case .failClosed:
                throw error
            case .failOpen:
                self.fallbacks.add(1, ordering: .relaxed)
                return try await self.fallback.check(limit, key: key, cost: cost)
            }
        }
    }

    /// `check` from `eventLoop`, answered on it: the primary's, with the same policy on its failure.
    public func check(
        _ limit: RateLimit, key: String, cost: Double, on eventLoop: any EventLoop,
        then complete: @escaping (Result<RateLimitDecision, RateLimitStoreError>) -> Void
    ) {
        self.primary.check(limit, key: key, cost: cost, on: eventLoop) { result in
            guard case .failure(let error) = result else {
                complete(result)
                return
            }
            self.failures.add(1, ordering: .relaxed)
            self.warnIfDue(error)
            switch self.policy {
            case .failClosed:
                complete(result)
            case .failOpen:
                self.fallbacks.add(1, ordering: .relaxed)
                self.fallback.check(limit, key: key, cost: cost, on: eventLoop, then: complete)
            }
        }
    }

    private func warnIfDue(_ error: RateLimitStoreError) {
        let now = Int(MonotonicClock.now() * 1000)
        let last = self.lastWarning.load(ordering: .relaxed)
        guard last == Int.min || now - last >= Int(self.warningInterval * 1000) else { return }
        guard self.lastWarning.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged else { return }
        self.logger.warning(
            "Rate-limit store failed; applying failure policy",
            metadata: [
                "error": "\(error.shortDescription)",
                "detail": "\(error)",
                "policy": "\(self.policy.rawValue)",
                "failures": .stringConvertible(self.failureCount),
            ]
        )
    }
}
