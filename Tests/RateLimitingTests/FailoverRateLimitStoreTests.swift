import Logging
import RateLimiting
import Testing

@Suite("FailoverRateLimitStore with a stub primary")
struct FailoverRateLimitStoreTests {
    struct FailingStore: RateLimitStore {
        let error: RateLimitStoreError
        func check(_ limit: RateLimit, key: String, cost: Double) async throws(RateLimitStoreError) -> RateLimitDecision {
            throw self.error
        }
    }

    struct AllowingStore: RateLimitStore {
        func check(_ limit: RateLimit, key: String, cost: Double) async throws(RateLimitStoreError) -> RateLimitDecision {
            RateLimitDecision(allowed: true, shadowLimited: false, remaining: 42, retryAfter: 0, secondsToNextToken: 0)
        }
    }

    let limit = RateLimit(name: "story-generation", capacity: 2, period: 60)

    @Test func primaryAnswersWhenHealthy() async throws {
        let store = FailoverRateLimitStore(primary: AllowingStore(), fallback: InMemoryRateLimitStore(), policy: .failOpen, logger: Logger(label: "test"))
        #expect(try await store.check(limit, key: "u", cost: 1).remaining == 42)
        #expect(store.fallbackCount == 0)
    }

    @Test func failOpenUsesTheLocalBucket() async throws {
        let fallback = InMemoryRateLimitStore(now: { 0 })
        let store = FailoverRateLimitStore(primary: FailingStore(error: .timeout), fallback: fallback, policy: .failOpen, logger: Logger(label: "test"))
        #expect(try await store.check(limit, key: "u", cost: 1).allowed)
        #expect(try await store.check(limit, key: "u", cost: 1).allowed)
        #expect(try await !store.check(limit, key: "u", cost: 1).allowed)
        #expect(store.fallbackCount == 3)
        #expect(fallback.bucketCount == 1)
    }

    @Test func failClosedRethrows() async {
        let store = FailoverRateLimitStore(primary: FailingStore(error: .unavailable), fallback: InMemoryRateLimitStore(), policy: .failClosed, logger: Logger(label: "test"))
        await #expect(throws: RateLimitStoreError.unavailable) { try await store.check(limit, key: "u", cost: 1) }
        #expect(store.fallbackCount == 0)
        #expect(store.failureCount == 1)
    }

    @Test func policyNames() {
        #expect(FailoverRateLimitStore.Policy(rawValue: "open") == .failOpen)
        #expect(FailoverRateLimitStore.Policy(rawValue: "closed") == .failClosed)
    }

    @Test func errorsHaveStableShortDescriptions() {
        #expect(RateLimitStoreError.timeout.shortDescription == "timeout")
        #expect(RateLimitStoreError.unavailable.shortDescription == "unavailable")
        #expect(RateLimitStoreError.protocolError.shortDescription == "protocol_error")
        #expect(RateLimitStoreError.timeout != RateLimitStoreError.unavailable)
    }
}
