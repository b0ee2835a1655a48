import HTTPTypes
import Logging
import RateLimiting
import Testing

@testable import Gateway
@testable import GatewayConfig

/// `RateLimiter.checkNow`, the limit checked without a task: it decides, or it fails closed; a request never goes unchecked.
@Suite("Rate limiter without waiting")
struct RateLimiterTests {
    /// A store that claims to decide without waiting but gives no decision (a store written wrongly).
    struct UndecidedStore: RateLimitStore {
        func check(_ limit: RateLimit, key: String, cost: Double) async throws(RateLimitStoreError) -> RateLimitDecision {
            throw .unavailable
        }
        func checkWithoutWaiting(_ limit: RateLimit, key: String, cost: Double) -> RateLimitDecision? { nil }
        var decidesWithoutWaiting: Bool { true }
    }

    static let limit = RateLimit(name: "api", capacity: 2, period: 60)

    static func limiter(_ store: any RateLimitStore) -> RateLimiter {
        RateLimiter(limits: [Self.limit], store: store, logger: Logger(label: "rate-limiter-test"))
    }

    @Test("in-process buckets: allowed with the limit's fields, then a 429 once the bucket is empty")
    func decides() throws {
        let limiter = Self.limiter(InMemoryRateLimitStore())
        var outcome = ""
        for _ in 0..<2 {
            let answer = try limiter.checkNow(RouteRateLimit(name: "api"), key: "user-1", outcome: &outcome)
            #expect(answer.decision.allowed)
            #expect(outcome == "allowed")
        }
        let refused = #expect(throws: GatewayError.self) {
            _ = try limiter.checkNow(RouteRateLimit(name: "api"), key: "user-1", outcome: &outcome)
        }
        #expect(refused?.status == .tooManyRequests)
        #expect(outcome == "limited")
    }

    @Test("a store that gives no decision without waiting: 503 UNAVAILABLE (fail closed), counted as store_error")
    func undecidedFailsClosed() throws {
        let limiter = Self.limiter(UndecidedStore())
        var outcome = ""
        let error = #expect(throws: GatewayError.self) {
            _ = try limiter.checkNow(RouteRateLimit(name: "api"), key: "user-1", outcome: &outcome)
        }
        #expect(error?.status == .serviceUnavailable)
        #expect(error?.code == "UNAVAILABLE")
        #expect(error?.reason == "rate_limit_store_cannot_decide_now")
        #expect(error?.retryAfter == 1)
        #expect(outcome == "store_error")
    }
}
