public import NIOCore

/// Where buckets live: in this process (`InMemoryRateLimitStore`) or shared by a fleet (`RedisRateLimitStore`).
public protocol RateLimitStore: Sendable {
    /// Refills the bucket for (`limit.name`, `key`) and takes `cost` tokens when they are available.
    ///
    /// - Parameters:
    ///   - limit: the limit to apply; its name selects the bucket.
    ///   - key: whose bucket, usually the caller's uid.
    ///   - cost: a positive, finite number of tokens, usually 1 (a precondition: route configuration, not input).
    /// - Throws: `RateLimitStoreError` when the store could not decide; the caller applies its failure policy.
    func check(_ limit: RateLimit, key: String, cost: Double) async throws(RateLimitStoreError) -> RateLimitDecision

    /// The decision without suspending, for a store that can give one (the in-process buckets); nil for a store
    /// that must ask elsewhere (Redis), whose `check` is then the only way. By default nil.
    func checkWithoutWaiting(_ limit: RateLimit, key: String, cost: Double) -> RateLimitDecision?

    /// Whether `checkWithoutWaiting` decides. By default false.
    var decidesWithoutWaiting: Bool { get }

    /// `check` for a caller on `eventLoop` that does not suspend (the gateway's connection handling): `complete` gets the
    /// decision or the error on that loop, at once or later. Call it on `eventLoop`. By default
    /// `checkWithoutWaiting`, else `check` in a task.
    func check(
        _ limit: RateLimit, key: String, cost: Double, on eventLoop: any EventLoop,
        then complete: @escaping (Result<RateLimitDecision, RateLimitStoreError>) -> Void
    )
}

extension RateLimitStore {
    public func checkWithoutWaiting(_ limit: RateLimit, key: String, cost: Double) -> RateLimitDecision? {
        nil
    }

    public var decidesWithoutWaiting: Bool { false }

    public func check(
        _ limit: RateLimit, key: String, cost: Double, on eventLoop: any EventLoop,
        then complete: @escaping (Result<RateLimitDecision, RateLimitStoreError>) -> Void
    ) {
        if let decision = self.checkWithoutWaiting(limit, key: key, cost: cost) {
            complete(.success(decision))
            return
        }
        self.checkInTask(limit, key: key, cost: cost, on: eventLoop, then: complete)
    }

    /// The decision as a future on `eventLoop`, from `check(_:key:cost:on:then:)`. Call it on `eventLoop`.
    public func checkFuture(_ limit: RateLimit, key: String, cost: Double, on eventLoop: any EventLoop) -> EventLoopFuture<RateLimitDecision> {
        let promise = eventLoop.makePromise(of: RateLimitDecision.self)
        self.check(limit, key: key, cost: cost, on: eventLoop) { result in
            promise.completeWith(result.mapError { $0 as any Error })
        }
        return promise.futureResult
    }

    /// `check` in a task; `complete` gets its result on `eventLoop`. Call it on `eventLoop`.
    func checkInTask(
        _ limit: RateLimit, key: String, cost: Double, on eventLoop: any EventLoop,
        then complete: @escaping (Result<RateLimitDecision, RateLimitStoreError>) -> Void
    ) {
        let promise = eventLoop.makePromise(of: RateLimitDecision.self)
        promise.completeWithTask { try await self.check(limit, key: key, cost: cost) }
        promise.futureResult.assumeIsolated().whenComplete { result in
            complete(result.mapError { $0 as? RateLimitStoreError ?? .unavailable.with(detail: "\($0)") })
        }
    }
}
