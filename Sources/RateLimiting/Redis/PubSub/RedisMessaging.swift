public import Logging
public import NIOCore
public import NIOPosix
public import ServiceLifecycle
import Synchronization

/// Small keys and one broadcast channel on a single Redis server, for state that replicas share (the revocation
/// check's user states and its drops): `GET`, `SET … PX`, `DEL` and `PUBLISH` on a pooled connection, and a dedicated
/// connection `SUBSCRIBE`d to the channel whose messages go to `onMessage`. Reconnects both after an outage; a message
/// published while the subscriber was disconnected is lost (callers bound what that costs).
public final class RedisMessaging: Service, Sendable {
    private let endpoint: RedisEndpoint
    private let pool: RedisConnectionPool
    private let channel: String
    private let timeout: TimeAmount
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    private let onMessage: Mutex<(@Sendable (String) -> Void)?>
    private let subscribed = Mutex<(isSubscribed: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// - Parameters:
    ///   - url: `redis://[[user]:password@]host[:port][/db]`.
    ///   - channel: the channel every replica publishes to and subscribes to.
    public init(
        url: String, channel: String, timeout: Duration = .milliseconds(500),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, logger: Logger
    ) throws(RateLimitStoreError) {
        self.endpoint = try RedisEndpoint(url: url)
        self.channel = channel
        self.timeout = TimeAmount(timeout)
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
        self.onMessage = Mutex(nil)
        self.pool = RedisConnectionPool(
            endpoint: self.endpoint, size: 1, eventLoopGroup: eventLoopGroup, connectTimeout: TimeAmount(timeout),
            stallLimit: .seconds(5), reconnectInterval: .milliseconds(250), logger: logger
        )
    }

    /// Where the channel's messages go (set it before `run()`).
    public func onMessage(_ handler: @escaping @Sendable (String) -> Void) {
        self.onMessage.withLock { $0 = handler }
    }

    /// Keeps the command connection and the subscription up until graceful shutdown or cancellation.
    public func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.pool.run() }
                group.addTask { await self.subscribeLoop() }
                await group.waitForAll()
            }
        } onGracefulShutdown: {
            self.pool.shutdown()
        }
    }

    /// Returns once the subscription is confirmed (or the calling task is cancelled).
    public func waitUntilSubscribed() async {
        await withCheckedContinuation { continuation in
            let ready = self.subscribed.withLock { state -> Bool in
                if state.isSubscribed { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    public func get(_ key: String) async throws(RateLimitStoreError) -> String? {
        let reply = try await self.send(RedisCommand("GET", key))
        if case .bulkString(nil) = reply { return nil }
        guard let text = reply.string else { throw .protocolError.with(detail: "GET answered \(reply)") }
        return text
    }

    public func set(_ key: String, _ value: String, expiresInMilliseconds milliseconds: Int) async throws(RateLimitStoreError) {
        _ = try await self.send(RedisCommand("SET", key, value, "PX", String(max(1, milliseconds))))
    }

    public func delete(_ keys: [String]) async throws(RateLimitStoreError) {
        guard !keys.isEmpty else { return }
        _ = try await self.send(RedisCommand(["DEL"] + keys))
    }

    /// Publishes `message` on the channel; returns how many subscribers received it.
    @discardableResult
    public func publish(_ message: String) async throws(RateLimitStoreError) -> Int {
        Int(try await self.send(RedisCommand("PUBLISH", self.channel, message)).integer ?? 0)
    }

    private func send(_ command: RedisCommand) async throws(RateLimitStoreError) -> RESPValue {
        let deadline = NIODeadline.now() + self.timeout
        let connection = try await self.pool.connection(deadline: deadline)
        let reply = try await connection.send(command, deadline: deadline)
        if case .error(let message) = reply { throw .unavailable.with(detail: "\(command.name) failed: \(message)") }
        return reply
    }

    private func subscribeLoop() async {
        var failures = 0
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            do {
                let channel = try await self.connectSubscriber()
                failures = 0
                try await withTaskCancellationHandler {
                    try await withGracefulShutdownHandler {
                        try await channel.closeFuture.get()
                    } onGracefulShutdown: {
                        channel.close(promise: nil)
                    }
                } onCancel: {
                    channel.close(promise: nil)
                }
            } catch {
                failures += 1
                if failures == 1 { self.logger.warning("Redis subscription lost; reconnecting", metadata: ["error": "\(error)"]) }
            }
            self.subscribed.withLock { $0.isSubscribed = false }
            try? await Task.sleep(for: .milliseconds(min(250 * failures, 2000)))
        }
    }

    private func connectSubscriber() async throws -> any Channel {
        let commands = self.endpoint.setupCommands + [RedisCommand("SUBSCRIBE", self.channel)]
        let onMessage: @Sendable (String) -> Void = { [weak self] message in
            self?.onMessage.withLock { $0 }?(message)
        }
        let onSubscribed: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            let waiters = self.subscribed.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.isSubscribed = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        let (host, port) = (self.endpoint.host, self.endpoint.port)
        let address: SocketAddress
        if let literal = try? SocketAddress(ipAddress: host, port: port) {
            address = literal
        } else {
            address = try await NIOThreadPool.singleton.runIfActive { try SocketAddress.makeAddressResolvingHost(host, port: port) }
        }
        return try await ClientBootstrap(group: self.eventLoopGroup)
            .connectTimeout(self.timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(RESPDecoder()),
                        MessageToByteHandler(RESPEncoder()),
                        RedisPushHandler(commands: commands, onSubscribed: onSubscribed, onMessage: onMessage),
                    ])
                }
            }
            .connect(to: address)
            .get()
    }
}
