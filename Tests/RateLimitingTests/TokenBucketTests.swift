import RateLimiting
import Testing

@Suite("TokenBucket: the pure rule, time injected")
struct TokenBucketTests {
    /// 10 tokens per 3600 s: one token every 360 s.
    let limit = RateLimit(name: "story-generation", capacity: 10, period: 3600)

    @Test func startsFull() {
        let bucket = TokenBucket(full: limit, now: 1000)
        #expect(bucket.tokens == 10)
        #expect(bucket.isFull(limit: limit, now: 1000))
    }

    @Test func burstsUpToCapacityAndNoMore() {
        var bucket = TokenBucket(full: limit, now: 0)
        for expectedRemaining in (0..<10).reversed() {
            let decision = bucket.take(1, limit: limit, now: 0)
            #expect(decision.allowed)
            #expect(decision.remaining == expectedRemaining)
        }
        let refused = bucket.take(1, limit: limit, now: 0)
        #expect(!refused.allowed)
        #expect(!refused.shadowLimited)
        #expect(refused.remaining == 0)
        #expect(refused.retryAfter == 360)
        #expect(refused.secondsToNextToken == 360)
    }

    @Test func refillsFractionally() {
        var bucket = TokenBucket(full: limit, now: 0)
        for _ in 0..<10 { _ = bucket.take(1, limit: limit, now: 0) }
        // period / capacity / 2 = 180 s: half a token.
        #expect(bucket.tokens(limit: limit, now: 180) == 0.5)
        let refused = bucket.take(1, limit: limit, now: 180)
        #expect(!refused.allowed)
        #expect(refused.retryAfter == 180)
        #expect(refused.secondsToNextToken == 180)
        #expect(bucket.tokens == 0.5)
        #expect(bucket.take(1, limit: limit, now: 360).allowed)
    }

    @Test func neverRefillsPastCapacity() {
        var bucket = TokenBucket(full: limit, now: 0)
        _ = bucket.take(1, limit: limit, now: 0)
        #expect(bucket.tokens(limit: limit, now: 1_000_000) == 10)
        #expect(bucket.isFull(limit: limit, now: 360))
        #expect(!bucket.isFull(limit: limit, now: 359))
    }

    @Test func exactTimesAfterOneRequest() {
        var bucket = TokenBucket(full: limit, now: 0)
        let decision = bucket.take(1, limit: limit, now: 0)
        #expect(decision == RateLimitDecision(allowed: true, shadowLimited: false, remaining: 9, retryAfter: 0, secondsToNextToken: 360))
        // 100 s later 9.2777… tokens: the next whole token (10) in 260 s.
        let later = bucket.take(1, limit: limit, now: 100)
        #expect(later.remaining == 8)
        #expect(abs(later.secondsToNextToken - 260) < 1e-9)
    }

    @Test func fullBucketReportsZeroSecondsToNextToken() {
        var bucket = TokenBucket(full: limit, now: 0)
        let oversized = bucket.take(11, limit: limit, now: 0)
        #expect(!oversized.allowed)
        #expect(oversized.remaining == 10)
        #expect(oversized.secondsToNextToken == 0)
        #expect(oversized.retryAfter == 360)
    }

    @Test func weightedCostRefusedConsumesNothing() {
        var bucket = TokenBucket(full: limit, now: 0)
        for _ in 0..<8 { _ = bucket.take(1, limit: limit, now: 0) }
        let refused = bucket.take(3, limit: limit, now: 0)
        #expect(!refused.allowed)
        #expect(refused.remaining == 2)
        #expect(refused.retryAfter == 360)
        #expect(bucket.tokens == 2)
        #expect(bucket.take(2, limit: limit, now: 0).allowed)
        #expect(bucket.tokens == 0)
    }

    @Test func fractionalCost() {
        var bucket = TokenBucket(full: limit, now: 0)
        let decision = bucket.take(0.5, limit: limit, now: 0)
        #expect(decision.allowed)
        #expect(decision.remaining == 9)
        #expect(decision.secondsToNextToken == 180)
    }

    @Test func shadowModeAllowsFlagsAndFloorsAtZero() {
        var shadow = limit
        shadow.shadow = true
        var bucket = TokenBucket(full: shadow, now: 0)
        for _ in 0..<9 { #expect(!bucket.take(1, limit: shadow, now: 0).isOverLimit) }
        let over = bucket.take(3, limit: shadow, now: 0)
        #expect(over.allowed)
        #expect(over.shadowLimited)
        #expect(over.retryAfter == 720)
        #expect(over.remaining == 0)
        #expect(bucket.tokens == 0)
        let again = bucket.take(1, limit: shadow, now: 0)
        #expect(again.allowed && again.shadowLimited)
        #expect(bucket.tokens == 0)
    }

    @Test func clockGoingBackwardsAddsNothing() {
        var bucket = TokenBucket(full: limit, now: 1000)
        _ = bucket.take(5, limit: limit, now: 1000)
        let decision = bucket.take(1, limit: limit, now: 900)
        #expect(decision.remaining == 4)
        #expect(bucket.updatedAt == 1000)
    }

    @Test func smallerCapacityClampsTokens() {
        var bucket = TokenBucket(full: limit, now: 0)
        let smaller = RateLimit(name: limit.name, capacity: 3, period: 3600)
        #expect(bucket.take(1, limit: smaller, now: 0).remaining == 2)
    }
}
