/// A token bucket: the pure rule, with time injected as seconds (`now`).
///
/// The bucket refills continuously (fractional tokens) at `limit.capacity / limit.period` per second up to
/// `limit.capacity`. A request of `cost` tokens is allowed when that many are available, and then takes them.
/// A refused request takes nothing. Over a shadow limit the request is allowed and flagged, and the bucket
/// is drained to zero, never below.
///
/// `RedisRateLimitStore`'s Lua script applies exactly these rules with Redis's clock; keep the two in step.
public struct TokenBucket: Sendable, Equatable {
    /// Tokens in the bucket as of `updatedAt`.
    public private(set) var tokens: Double
    /// The time of the last refill, in the caller's seconds.
    public private(set) var updatedAt: Double

    /// Slack for floating-point comparisons: a cost within this many tokens of the balance fits.
    public static let tolerance: Double = 1e-9

    /// A full bucket at `now`.
    public init(full limit: RateLimit, now: Double) {
        self.tokens = limit.capacity
        self.updatedAt = now
    }

    /// Tokens available at `now`, without changing the bucket. A clock that went backwards adds nothing.
    public func tokens(limit: RateLimit, now: Double) -> Double {
        var available = self.tokens
        if now > self.updatedAt {
            available += (now - self.updatedAt) * limit.capacity / limit.period
        }
        return min(limit.capacity, available)
    }

    /// Refills to `now`, then takes `cost` tokens when they are available.
    ///
    /// - Parameter cost: a positive number of tokens; it may exceed 1 (and even the capacity, which never fits).
    public mutating func take(_ cost: Double, limit: RateLimit, now: Double) -> RateLimitDecision {
        precondition(cost > 0 && cost.isFinite, "cost must be positive and finite")
        let available = self.tokens(limit: limit, now: now)
        self.tokens = available
        self.updatedAt = max(self.updatedAt, now)

        if cost <= available + Self.tolerance {
            self.tokens = max(0, available - cost)
            return Self.decision(allowed: true, shadowLimited: false, tokens: self.tokens, retryAfter: 0, limit: limit)
        }
        let retryAfter = limit.secondsToRefill(cost - available)
        if limit.shadow {
            self.tokens = 0
            return Self.decision(allowed: true, shadowLimited: true, tokens: 0, retryAfter: retryAfter, limit: limit)
        }
        return Self.decision(allowed: false, shadowLimited: false, tokens: available, retryAfter: retryAfter, limit: limit)
    }

    /// True when, at `now`, the bucket would be full again (so a store may forget it).
    public func isFull(limit: RateLimit, now: Double) -> Bool {
        self.tokens(limit: limit, now: now) >= limit.capacity - Self.tolerance
    }

    /// Seconds from `updatedAt` until the bucket is full again.
    public func secondsUntilFull(limit: RateLimit) -> Double {
        limit.secondsToRefill(max(0, limit.capacity - self.tokens))
    }

    static func decision(
        allowed: Bool,
        shadowLimited: Bool,
        tokens: Double,
        retryAfter: Double,
        limit: RateLimit
    ) -> RateLimitDecision {
        let whole = (tokens + Self.tolerance).rounded(.down)
        var secondsToNextToken: Double = 0
        if tokens < limit.capacity - Self.tolerance {
            secondsToNextToken = limit.secondsToRefill(min(whole + 1, limit.capacity) - tokens)
        }
        return RateLimitDecision(
            allowed: allowed,
            shadowLimited: shadowLimited,
            remaining: Int(max(0, whole)),
            retryAfter: retryAfter,
            secondsToNextToken: secondsToNextToken
        )
    }
}
