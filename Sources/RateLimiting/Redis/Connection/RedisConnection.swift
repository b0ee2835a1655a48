import Logging
import Synchronization
import NIOCore
import NIOPosix

/// One TCP connection to Redis with the RESP pipeline; thread-safe, many requests in flight at once.
final class RedisConnection: Sendable {
    let channel: any Channel
    /// A flush is due for the commands written on the channel's loop since the last one (touched on that loop).
    private let flushScheduled = Atomic<Bool>(false)

    private init(channel: any Channel) {
        self.channel = channel
    }

    /// Connects, then runs `setup` (AUTH, SELECT, SCRIPT LOAD …) in order; any error reply fails the connection.
    static func connect(
        to endpoint: RedisEndpoint,
        eventLoopGroup: any EventLoopGroup,
        deadline: NIODeadline,
        stallLimit: TimeAmount,
        setup: [RedisCommand]
    ) async throws(RateLimitStoreError) -> RedisConnection {
        let channel: any Channel
        do {
            let address = try await Self.resolve(endpoint)
            let remaining = deadline - .now()
            guard remaining > .zero else { throw RateLimitStoreError.timeout.with(detail: "connect") }
            channel = try await ClientBootstrap(group: eventLoopGroup)
                .connectTimeout(remaining)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers([
                            ByteToMessageHandler(RESPDecoder()),
                            MessageToByteHandler(RESPEncoder()),
                            RedisCommandHandler(stallLimit: stallLimit),
                        ])
                    }
                }
                .connect(to: address)
                .get()
        } catch let error as RateLimitStoreError {
            throw error
        } catch ChannelError.connectTimeout(let after) {
            throw .timeout.with(detail: "connect timed out after \(after)")
        } catch {
            throw .unavailable.with(detail: "connect: \(error)")
        }

        let connection = RedisConnection(channel: channel)
        do throws(RateLimitStoreError) {
            for command in setup {
                let reply = try await connection.send(command, deadline: deadline)
                if case .error(let message) = reply {
                    throw RateLimitStoreError.unavailable.with(detail: "\(command.name) failed: \(message)")
                }
            }
        } catch {
            connection.close()
            throw error
        }
        return connection
    }

    /// Sends `command` (after `ASKING` when `asking`) and waits for its reply until `deadline`.
    ///
    /// A request that never left this process (the connection was already closed) fails with an error whose
    /// `notSent` is true, so the caller may retry it on another connection.
    func send(_ command: RedisCommand, asking: Bool = false, deadline: NIODeadline) async throws(RateLimitStoreError) -> RESPValue {
        guard deadline > .now() else { throw .timeout }
        do {
            return try await self.sendFuture(command, asking: asking, deadline: deadline).get()
        } catch let error as RateLimitStoreError {
            throw error
        } catch {
            throw .unavailable.with(detail: "\(error)")
        }
    }

    /// `send`'s reply as a future on the connection's event loop (failed with a `RateLimitStoreError`).
    func sendFuture(_ command: RedisCommand, asking: Bool = false, deadline: NIODeadline) -> EventLoopFuture<RESPValue> {
        let promise = self.channel.eventLoop.makePromise(of: RESPValue.self)
        // If the write fails the command was not sent; when the handler already answered, this is a no-op
        // (a promise completes once; later completions are ignored).
        let request = RedisRequest(command: command, promise: promise, deadline: deadline, asking: asking)
        let written: EventLoopFuture<Void>
        if self.channel.eventLoop.inEventLoop {
            // On the connection's own loop (the pool prefers one): written now and flushed once the loop's current
            // batch of work is over, together with the other checks made meanwhile: one write(2) for them all.
            written = self.channel.write(request)
            if !self.flushScheduled.exchange(true, ordering: .relaxed) {
                self.channel.eventLoop.execute {
                    self.flushScheduled.store(false, ordering: .relaxed)
                    self.channel.flush()
                }
            }
        } else {
            written = self.channel.writeAndFlush(request)
        }
        written.whenFailure { error in
            promise.fail(RateLimitStoreError.unavailable.markedNotSent().with(detail: "write failed: \(error)"))
        }
        return promise.futureResult
    }

    var isActive: Bool { self.channel.isActive }

    var closeFuture: EventLoopFuture<Void> { self.channel.closeFuture }

    func close() {
        self.channel.close(promise: nil)
    }

    /// IP literals directly; host names through getaddrinfo on NIO's thread pool, never on an event loop.
    private static func resolve(_ endpoint: RedisEndpoint) async throws -> SocketAddress {
        if let address = try? SocketAddress(ipAddress: endpoint.host, port: endpoint.port) {
            return address
        }
        let host = endpoint.host
        let port = endpoint.port
        return try await NIOThreadPool.singleton.runIfActive {
            try SocketAddress.makeAddressResolvingHost(host, port: port)
        }
    }
}
