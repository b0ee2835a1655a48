@testable import OpenAI
import Testing

@Suite("RetryPolicy: which failures are retried, how long to wait, when to stop")
struct RetryPolicyTests {
    let policy = RetryPolicy(maxAttempts: 3, backoffBase: .milliseconds(500), backoffCap: .seconds(8))

    @Test("429, 500, 502, 503, 504 and connection failures are retried", arguments: [429, 500, 502, 503, 504])
    func retryableStatuses(status: Int) {
        let decision = self.policy.decide(afterAttempt: 1, failure: .status(status), retryAfter: nil, remaining: .seconds(60), jitter: .fixed(1))
        #expect(decision == .retry(after: .milliseconds(500)))
    }

    @Test("400, 401, 403, 404, 422 and 501 are never retried", arguments: [400, 401, 403, 404, 422, 501])
    func notRetryableStatuses(status: Int) {
        let decision = self.policy.decide(afterAttempt: 1, failure: .status(status), retryAfter: .seconds(1), remaining: .seconds(60), jitter: .fixed(1))
        #expect(decision == .stop(.notRetryable))
    }

    @Test func connectionFailureIsRetriedPermanentIsNot() {
        #expect(self.policy.decide(afterAttempt: 1, failure: .connection, retryAfter: nil, remaining: .seconds(60), jitter: .fixed(0.5)) == .retry(after: .milliseconds(250)))
        #expect(self.policy.decide(afterAttempt: 1, failure: .permanent, retryAfter: nil, remaining: .seconds(60), jitter: .fixed(0.5)) == .stop(.notRetryable))
    }

    @Test("after maxAttempts attempts the call stops")
    func attemptsExhausted() {
        #expect(self.policy.decide(afterAttempt: 2, failure: .status(503), retryAfter: nil, remaining: .seconds(60), jitter: .fixed(1)) != .stop(.attemptsExhausted))
        #expect(self.policy.decide(afterAttempt: 3, failure: .status(503), retryAfter: nil, remaining: .seconds(60), jitter: .fixed(1)) == .stop(.attemptsExhausted))
        let single = RetryPolicy(maxAttempts: 1, backoffBase: .milliseconds(500), backoffCap: .seconds(8))
        #expect(single.decide(afterAttempt: 1, failure: .status(429), retryAfter: nil, remaining: .seconds(60), jitter: .fixed(1)) == .stop(.attemptsExhausted))
    }

    @Test("the backoff ceiling doubles per retry up to the cap")
    func exponentialCeiling() {
        #expect(self.policy.backoffCeiling(beforeRetry: 1) == .milliseconds(500))
        #expect(self.policy.backoffCeiling(beforeRetry: 2) == .seconds(1))
        #expect(self.policy.backoffCeiling(beforeRetry: 3) == .seconds(2))
        #expect(self.policy.backoffCeiling(beforeRetry: 5) == .seconds(8))
        #expect(self.policy.backoffCeiling(beforeRetry: 60) == .seconds(8))
        #expect(self.policy.backoffCeiling(beforeRetry: 5000) == .seconds(8))
    }

    @Test("full jitter: the wait is the jitter fraction of the ceiling, from zero to the ceiling")
    func fullJitter() {
        let many = RetryPolicy(maxAttempts: 10, backoffBase: .milliseconds(500), backoffCap: .seconds(8))
        #expect(many.decide(afterAttempt: 2, failure: .status(500), retryAfter: nil, remaining: .seconds(60), jitter: .fixed(0)) == .retry(after: .zero))
        #expect(many.decide(afterAttempt: 2, failure: .status(500), retryAfter: nil, remaining: .seconds(60), jitter: .fixed(0.25)) == .retry(after: .milliseconds(250)))
        #expect(many.decide(afterAttempt: 3, failure: .status(500), retryAfter: nil, remaining: .seconds(60), jitter: .fixed(1)) == .retry(after: .seconds(2)))
        // out-of-range fractions are clamped
        #expect(many.decide(afterAttempt: 1, failure: .status(500), retryAfter: nil, remaining: .seconds(60), jitter: .fixed(7)) == .retry(after: .milliseconds(500)))
        // the random source stays inside the range
        for _ in 0..<200 {
            guard case .retry(let wait) = many.decide(afterAttempt: 4, failure: .status(500), retryAfter: nil, remaining: .seconds(60), jitter: .random) else {
                Issue.record("expected a retry")
                return
            }
            #expect(wait >= .zero && wait <= .seconds(4))
        }
    }

    @Test("Retry-After is a lower bound on the wait")
    func retryAfterIsHonoured() {
        #expect(self.policy.decide(afterAttempt: 1, failure: .status(429), retryAfter: .seconds(3), remaining: .seconds(60), jitter: .fixed(1)) == .retry(after: .seconds(3)))
        // a Retry-After shorter than the jittered backoff does not shorten it
        #expect(self.policy.decide(afterAttempt: 2, failure: .status(503), retryAfter: .milliseconds(10), remaining: .seconds(60), jitter: .fixed(1)) == .retry(after: .seconds(1)))
    }

    @Test("a wait that would reach the deadline is not taken")
    func deadline() {
        #expect(self.policy.decide(afterAttempt: 1, failure: .status(429), retryAfter: .seconds(30), remaining: .seconds(10), jitter: .fixed(1)) == .stop(.deadline))
        #expect(self.policy.decide(afterAttempt: 1, failure: .status(429), retryAfter: .seconds(10), remaining: .seconds(10), jitter: .fixed(1)) == .stop(.deadline))
        #expect(self.policy.decide(afterAttempt: 1, failure: .connection, retryAfter: nil, remaining: .milliseconds(100), jitter: .fixed(1)) == .stop(.deadline))
        #expect(self.policy.decide(afterAttempt: 1, failure: .connection, retryAfter: nil, remaining: .milliseconds(600), jitter: .fixed(1)) == .retry(after: .milliseconds(500)))
    }
}

@Suite("RetryAfter: retry-after-ms, delay-seconds and HTTP-date")
struct RetryAfterTests {
    // 1994-11-06T08:49:37Z
    let sunday: Double = 784_111_777

    @Test func seconds() {
        #expect(RetryAfter.parse(retryAfterMilliseconds: nil, retryAfter: "7", now: 0) == .seconds(7))
        #expect(RetryAfter.parse(retryAfterMilliseconds: nil, retryAfter: " 0 ", now: 0) == .zero)
    }

    @Test func millisecondsWinOverSeconds() {
        #expect(RetryAfter.parse(retryAfterMilliseconds: "1500", retryAfter: "7", now: 0) == .milliseconds(1500))
        #expect(RetryAfter.parse(retryAfterMilliseconds: "junk", retryAfter: "7", now: 0) == .seconds(7))
    }

    @Test("an HTTP-date gives the time until it, never negative")
    func httpDate() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == self.sunday)
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(HTTPDate.parse("Tue, 29 Feb 2028 23:59:59 GMT") == 1_835_481_599)
        #expect(RetryAfter.parse(retryAfterMilliseconds: nil, retryAfter: "Sun, 06 Nov 1994 08:49:37 GMT", now: self.sunday - 12) == .seconds(12))
        #expect(RetryAfter.parse(retryAfterMilliseconds: nil, retryAfter: "Sun, 06 Nov 1994 08:49:37 GMT", now: self.sunday + 100) == .zero)
    }

    @Test("unreadable values are ignored", arguments: ["", "soon", "-3", "1.5", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT"])
    func unreadable(value: String) {
        #expect(RetryAfter.parse(retryAfterMilliseconds: nil, retryAfter: value, now: 0) == nil)
    }

    @Test("a wait too long to be meant is a day, and never overflows", arguments: [
        ("1e22", nil), ("1e300", nil), (nil, "9223372036854775807"), (nil, "99999999999999999999999"), (nil, "Fri, 31 Dec 9999 23:59:59 GMT"),
    ] as [(String?, String?)])
    func huge(milliseconds: String?, seconds: String?) {
        #expect(RetryAfter.parse(retryAfterMilliseconds: milliseconds, retryAfter: seconds, now: 0) == .seconds(86_400))
    }

    @Test func absent() {
        #expect(RetryAfter.parse(retryAfterMilliseconds: nil, retryAfter: nil, now: 0) == nil)
    }
}
