import Logging
import NIOCore
import Synchronization

/// A fixed number of Redis connections used round robin.
///
/// Checks never connect themselves: they take a live connection, or wait (until their deadline) for one that is
/// being set up, or ask `run()` to set one up when the slot's `reconnectInterval` has passed. `run()` also retries
/// idle slots every `reconnectInterval`, so after an outage the pool fills again without traffic. A connection
/// that closes frees its slot at once; one found dead when taken is skipped.
final class RedisConnectionPool: Sendable {
    typealias Slot = ConnectionSlot<RedisConnection, EventLoopFuture<RedisConnection>>

    private struct ConnectRequest: Sendable {
        let slot: Int
        let promise: EventLoopPromise<RedisConnection>
    }

    private struct State {
        var slots: [Slot]
        var next = 0
        var isShutDown = false
        /// Whether the last attempt failed, so an outage logs one warning, not one per attempt.
        var isDown = false
    }

    private enum Acquire {
        case use(RedisConnection)
        case wait(EventLoopFuture<RedisConnection>)
        case fail(RateLimitStoreError)
    }

    private let state: Mutex<State>
    private let endpoint: RedisEndpoint
    private let eventLoopGroup: any EventLoopGroup
    private let connectTimeout: TimeAmount
    private let stallLimit: TimeAmount
    private let reconnectInterval: TimeAmount
    private let logger: Logger
    private let requests: AsyncStream<ConnectRequest>
    private let requestContinuation: AsyncStream<ConnectRequest>.Continuation

    init(
        endpoint: RedisEndpoint,
        size: Int,
        eventLoopGroup: any EventLoopGroup,
        connectTimeout: TimeAmount,
        stallLimit: TimeAmount,
        reconnectInterval: TimeAmount,
        logger: Logger
    ) {
        self.state = Mutex(State(slots: Array(repeating: Slot(reconnectInterval: reconnectInterval), count: size)))
        self.endpoint = endpoint
        self.eventLoopGroup = eventLoopGroup
        self.connectTimeout = connectTimeout
        self.stallLimit = stallLimit
        self.reconnectInterval = reconnectInterval
        self.logger = logger
        (self.requests, self.requestContinuation) = AsyncStream.makeStream(of: ConnectRequest.self)
    }

    /// A live connection on `eventLoop`, without waiting; nil when there is none.
    func connectionNow(on eventLoop: any EventLoop) -> RedisConnection? {
        self.state.withLock { state in
            state.slots.lazy.compactMap(\.connection).first { $0.channel.eventLoop === eventLoop && $0.isActive }
        }
    }

    /// A live connection (one on the caller's event loop if any, else round robin); waits until `deadline` when none is
    /// up yet but one is being set up.
    func connection(deadline: NIODeadline) async throws(RateLimitStoreError) -> RedisConnection {
        var started: [ConnectRequest] = []
        let action = self.state.withLock { state -> Acquire in
            guard !state.isShutDown else { return .fail(.shutdown) }
            let now = NIODeadline.now()
            let count = state.slots.count
            let first = state.next
            state.next = (state.next + 1) % count
            // A connection on the caller's own event loop first: the command is written and its reply read without a
            // hop to another thread and back.
            var found = state.slots.lazy.compactMap(\.connection).first { $0.isActive && $0.channel.eventLoop.inEventLoop }
            for offset in 0..<count where found == nil {
                let index = (first + offset) % count
                guard let connection = state.slots[index].connection else { continue }
                if connection.isActive {
                    found = connection
                    break
                }
                state.slots[index].closed(connection)
            }
            if let found {
                // Keep the pool full: a free slot on our turn starts connecting in the background.
                if state.slots[first].mayConnect(now: now) {
                    started.append(self.startConnecting(&state.slots[first], slot: first, now: now))
                }
                return .use(found)
            }
            if let pending = state.slots.lazy.compactMap(\.pending).first {
                return .wait(pending)
            }
            if let index = state.slots.indices.first(where: { state.slots[$0].mayConnect(now: now) }) {
                let request = self.startConnecting(&state.slots[index], slot: index, now: now)
                started.append(request)
                return .wait(request.promise.futureResult)
            }
            return .fail(.unavailable.with(detail: "no Redis connection; reconnecting"))
        }
        for request in started { self.requestContinuation.yield(request) }
        switch action {
        case .use(let connection): return connection
        case .fail(let error): throw error
        case .wait(let future): return try await Self.wait(for: future, until: deadline)
        }
    }

    /// Slots holding an open connection.
    var liveConnectionCount: Int {
        self.state.withLock { state in state.slots.reduce(0) { $0 + (($1.connection?.isActive ?? false) ? 1 : 0) } }
    }

    /// Sets up connections on request and retries idle slots every `reconnectInterval`, until cancelled or
    /// `shutdown()`; then closes every connection.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                while !Task.isCancelled {
                    self.connectIdleSlots()
                    try? await Task.sleep(for: Duration(self.reconnectInterval))
                }
            }
            for await request in self.requests {
                group.addTask { await self.connect(request) }
            }
            group.cancelAll()
        }
        self.shutdown()
    }

    /// Closes every connection and fails later checks with `.shutdown`. Idempotent.
    func shutdown() {
        let connections = self.state.withLock { state -> [RedisConnection] in
            state.isShutDown = true
            return state.slots.indices.compactMap { state.slots[$0].shutDown() }
        }
        self.requestContinuation.finish()
        for connection in connections { connection.close() }
    }

    private func connectIdleSlots() {
        let started = self.state.withLock { state -> [ConnectRequest] in
            guard !state.isShutDown else { return [] }
            let now = NIODeadline.now()
            return state.slots.indices.compactMap { index in
                guard state.slots[index].mayConnect(now: now) else { return nil }
                return self.startConnecting(&state.slots[index], slot: index, now: now)
            }
        }
        for request in started { self.requestContinuation.yield(request) }
    }

    private func startConnecting(_ slot: inout Slot, slot index: Int, now: NIODeadline) -> ConnectRequest {
        let promise = self.eventLoopGroup.any().makePromise(of: RedisConnection.self)
        slot.startConnecting(promise.futureResult, now: now)
        return ConnectRequest(slot: index, promise: promise)
    }

    private func connect(_ request: ConnectRequest) async {
        do {
            let connection = try await RedisConnection.connect(
                to: self.endpoint,
                eventLoopGroup: self.eventLoopGroup,
                deadline: .now() + self.connectTimeout,
                stallLimit: self.stallLimit,
                setup: self.endpoint.setupCommands + [TokenBucketScript.load]
            )
            let (accepted, wasDown) = self.state.withLock { state in
                let wasDown = state.isDown
                state.isDown = false
                return (state.slots[request.slot].connected(connection), wasDown)
            }
            guard accepted else {
                connection.close()
                request.promise.fail(RateLimitStoreError.shutdown)
                return
            }
            connection.closeFuture.whenComplete { _ in
                self.state.withLock { $0.slots[request.slot].closed(connection) }
            }
            if wasDown {
                self.logger.info("Connected to Redis again", metadata: ["redis.host": "\(self.endpoint.host)", "redis.port": .stringConvertible(self.endpoint.port)])
            }
            request.promise.succeed(connection)
        } catch {
            let firstFailure = self.state.withLock { state in
                state.slots[request.slot].connectFailed()
                defer { state.isDown = true }
                return !state.isDown
            }
            self.logger.log(
                level: firstFailure ? .warning : .debug,
                "Cannot connect to Redis; retrying",
                metadata: [
                    "redis.host": "\(self.endpoint.host)", "redis.port": .stringConvertible(self.endpoint.port),
                    "error": "\(error.shortDescription)", "detail": "\(error)",
                ]
            )
            request.promise.fail(error)
        }
    }

    private static func wait(
        for future: EventLoopFuture<RedisConnection>,
        until deadline: NIODeadline
    ) async throws(RateLimitStoreError) -> RedisConnection {
        let loop = future.eventLoop
        let promise = loop.makePromise(of: RedisConnection.self)
        let timer = loop.scheduleTask(deadline: deadline) {
            promise.fail(RateLimitStoreError.timeout.with(detail: "waiting for a Redis connection"))
        }
        // Both callbacks run on `loop`: whichever comes first completes the promise; the later one is ignored.
        future.whenComplete { result in
            timer.cancel()
            promise.completeWith(result)
        }
        do {
            return try await promise.futureResult.get()
        } catch let error as RateLimitStoreError {
            throw error
        } catch {
            throw .unavailable.with(detail: "\(error)")
        }
    }
}
