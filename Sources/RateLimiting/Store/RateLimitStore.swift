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

    /// `check` as a future completed on `eventLoop`, for a caller on that loop that does not suspend (the gateway's
    /// direct path); it fails with a `RateLimitStoreError`. By default `check` runs in a task.
    func checkFuture(_ limit: RateLimit, key: String, cost: Double, on eventLoop: any EventLoop) -> EventLoopFuture<RateLimitDecision>
}

extension RateLimitStore {
    public func checkWithoutWaiting(_ limit: RateLimit, key: String, cost: Double) -> RateLimitDecision? {
        nil
    }

    public var decidesWithoutWaiting: Bool { false }

    public func checkFuture(_ limit: RateLimit, key: String, cost: Double, on eventLoop: any EventLoop) -> EventLoopFuture<RateLimitDecision> {
        if let decision = self.checkWithoutWaiting(limit, key: key, cost: cost) { return eventLoop.makeSucceededFuture(decision) }
        return self.checkInTask(limit, key: key, cost: cost, on: eventLoop)
    }

    /// `check` in a task, its result a future on `eventLoop`.
    func checkInTask(_ limit: RateLimit, key: String, cost: Double, on eventLoop: any EventLoop) -> EventLoopFuture<RateLimitDecision> {
        let promise = eventLoop.makePromise(of: RateLimitDecision.self)
        promise.completeWithTask { try await self.check(limit, key: key, cost: cost) }
        return promise.futureResult
    }
}
