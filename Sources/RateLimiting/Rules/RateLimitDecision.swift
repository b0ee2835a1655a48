/// The outcome of one check against a bucket.
public struct RateLimitDecision: Sendable, Equatable {
    /// Whether the request may proceed. Always true in shadow mode.
    public let allowed: Bool
    /// True when the request was over a shadow limit: allowed, but it would have been refused.
    public let shadowLimited: Bool
    /// Whole tokens left after this request (rounded down).
    public let remaining: Int
    /// Seconds until the request's cost would be available; 0 when the request fitted. The caller rounds up.
    public let retryAfter: Double
    /// Seconds until one more whole token is available; 0 when the bucket is full.
    public let secondsToNextToken: Double

    /// A decision with every field given; stores build them, tests and fakes may too.
    public init(allowed: Bool, shadowLimited: Bool, remaining: Int, retryAfter: Double, secondsToNextToken: Double) {
        self.allowed = allowed
        self.shadowLimited = shadowLimited
        self.remaining = remaining
        self.retryAfter = retryAfter
        self.secondsToNextToken = secondsToNextToken
    }

    /// True when the request was over the limit, enforced or not.
    public var isOverLimit: Bool { !self.allowed || self.shadowLimited }
}
