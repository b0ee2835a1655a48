/// Whether, and after how long, a failed attempt is tried again: a pure rule, tested without sleeping.
///
/// - Only 429, 500, 502, 503, 504 and connection failures are retried; everything else stops at once.
/// - At most ``maxAttempts`` attempts, the first included.
/// - Before retry `n` (after attempt `n` failed) the wait is exponential backoff with full jitter,
///   `random(0...min(backoffCap, backoffBase * 2^(n-1)))`, raised to `Retry-After` when the server sent one.
/// - A wait that would reach the call's deadline is not taken: the call stops with the last error.
public struct RetryPolicy: Sendable, Hashable {
    /// Attempts per call, the first included.
    public var maxAttempts: Int
    public var backoffBase: Duration
    public var backoffCap: Duration

    /// A policy; the OpenAI client's is `OpenAIConfiguration`'s `maxAttempts`, `backoffBase` and `backoffCap`.
    public init(maxAttempts: Int, backoffBase: Duration, backoffCap: Duration) {
        self.maxAttempts = maxAttempts
        self.backoffBase = backoffBase
        self.backoffCap = backoffCap
    }

    /// What went wrong on an attempt.
    public enum Failure: Sendable, Hashable {
        /// The server answered with this status.
        case status(Int)
        /// No connection, or the connection broke (`CurlError.isConnectionError`).
        case connection
        /// Anything that is never retried (a timeout, an unreadable answer, a quota error).
        case permanent
    }

    /// What to do next.
    public enum Decision: Sendable, Hashable {
        /// Wait this long, then make the next attempt.
        case retry(after: Duration)
        /// Give up and report the attempt's error.
        case stop(StopReason)
    }

    public enum StopReason: Sendable, Hashable {
        /// The failure is not one that is retried.
        case notRetryable
        /// ``maxAttempts`` attempts were made.
        case attemptsExhausted
        /// The wait would reach the deadline.
        case deadline
    }

    /// The random source for full jitter: a fraction in `0...1`.
    public struct Jitter: Sendable {
        let fraction: @Sendable () -> Double

        /// A uniformly random fraction.
        public static let random = Jitter { Double.random(in: 0...1) }

        /// Always `fraction` (tests).
        public static func fixed(_ fraction: Double) -> Jitter { Jitter { fraction } }
    }

    /// The statuses that are retried.
    static let retryableStatuses: Set<Int> = [429, 500, 502, 503, 504]

    /// Whether `failure` is ever retried.
    static func isRetryable(_ failure: Failure) -> Bool {
        switch failure {
        case .status(let status): Self.retryableStatuses.contains(status)
        case .connection: true
        case .permanent: false
        }
    }

    /// The decision after attempt number `attempt` (1-based) failed with `failure`.
    ///
    /// - Parameters:
    ///   - retryAfter: The server's `Retry-After`, already parsed, if any: the wait is at least this.
    ///   - remaining: Time left before the call's deadline.
    ///   - jitter: Where the backoff's random fraction comes from.
    public func decide(
        afterAttempt attempt: Int,
        failure: Failure,
        retryAfter: Duration?,
        remaining: Duration,
        jitter: Jitter
    ) -> Decision {
        guard Self.isRetryable(failure) else { return .stop(.notRetryable) }
        guard attempt < self.maxAttempts else { return .stop(.attemptsExhausted) }
        let fraction = min(1, max(0, jitter.fraction()))
        var wait = self.backoffCeiling(beforeRetry: attempt) * fraction
        if let retryAfter, retryAfter > wait {
            wait = retryAfter
        }
        guard wait < remaining else { return .stop(.deadline) }
        return .retry(after: wait)
    }

    /// `min(backoffCap, backoffBase * 2^(n-1))`, the top of the jitter range before retry `n`.
    func backoffCeiling(beforeRetry n: Int) -> Duration {
        let exponent = Double(max(0, n - 1))
        let seconds = min(self.backoffCap.inSeconds, self.backoffBase.inSeconds * pow2(exponent))
        return .seconds(seconds)
    }

    private func pow2(_ exponent: Double) -> Double {
        exponent >= 1024 ? .infinity : Double(sign: .plus, exponent: Int(exponent), significand: 1)
    }
}
