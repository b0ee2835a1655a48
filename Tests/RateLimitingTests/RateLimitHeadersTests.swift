import RateLimiting
import Testing

@Suite("RateLimitHeaders: RateLimit-Policy, RateLimit and Retry-After")
struct RateLimitHeadersTests {
    let limit = RateLimit.storyGeneration

    @Test func policy() {
        #expect(RateLimitHeaders.policy(limit) == #""story-generation";q=10;w=3600"#)
        #expect(RateLimitHeaders.policy(RateLimit(name: "x", capacity: 2.5, period: 0.25)) == #""x";q=2.5;w=0.25"#)
    }

    @Test func stateAfterOneRequest() {
        var bucket = TokenBucket(full: limit, now: 0)
        let decision = bucket.take(1, limit: limit, now: 0)
        #expect(RateLimitHeaders.state(limit, decision) == #""story-generation";r=9;t=360"#)
        #expect(RateLimitHeaders.retryAfterSeconds(decision) == 0)
    }

    @Test func stateWhenFull() {
        let decision = RateLimitDecision(allowed: true, shadowLimited: false, remaining: 10, retryAfter: 0, secondsToNextToken: 0)
        #expect(RateLimitHeaders.state(limit, decision) == #""story-generation";r=10;t=0"#)
    }

    @Test("every number of digits, the largest values, a name with escapes")
    func stateDigits() {
        for remaining in [0, 7, 10, 99, 100, 12_345, 9_876_543_210, Int.max] {
            let decision = RateLimitDecision(allowed: true, shadowLimited: false, remaining: remaining, retryAfter: 0, secondsToNextToken: 1e12)
            #expect(RateLimitHeaders.state(limit, decision) == "\"story-generation\";r=\(remaining);t=31622400")
        }
        let negative = RateLimitDecision(allowed: false, shadowLimited: false, remaining: -3, retryAfter: 1, secondsToNextToken: 1)
        let odd = RateLimit(name: #"a"b\c"#, capacity: 1, period: 1)
        #expect(RateLimitHeaders.state(odd, negative) == #""a\"b\\c";r=0;t=1"#)
    }

    @Test func secondsRoundUp() {
        let decision = RateLimitDecision(allowed: false, shadowLimited: false, remaining: 0, retryAfter: 359.2, secondsToNextToken: 12.01)
        #expect(RateLimitHeaders.retryAfterSeconds(decision) == 360)
        #expect(RateLimitHeaders.state(limit, decision) == #""story-generation";r=0;t=13"#)
    }

    @Test func refusedRetryAfterIsAtLeastOne() {
        let decision = RateLimitDecision(allowed: false, shadowLimited: false, remaining: 0, retryAfter: 0.0001, secondsToNextToken: 0.0001)
        #expect(RateLimitHeaders.retryAfterSeconds(decision) == 1)
    }

    @Test func floatingPointDustDoesNotAddASecond() {
        let decision = RateLimitDecision(allowed: false, shadowLimited: false, remaining: 0, retryAfter: 360.00000000000006, secondsToNextToken: 360.00000000000006)
        #expect(RateLimitHeaders.retryAfterSeconds(decision) == 360)
        #expect(RateLimitHeaders.state(limit, decision).hasSuffix(";t=360"))
    }

    @Test func nameIsEscaped() {
        #expect(RateLimitHeaders.policy(RateLimit(name: #"a"b\c"#, capacity: 1, period: 1)) == #""a\"b\\c";q=1;w=1"#)
    }
}
