import Logging
import NIOCore
import NIOPosix

/// One TCP connection to Redis with the RESP pipeline; thread-safe, many requests in flight at once.
final class RedisConnection: Sendable {
    let channel: any Channel
    private let handler: NIOLoopBound<RedisCommandHandler>

    private init(channel: any Channel, handler: NIOLoopBound<RedisCommandHandler>) {
        self.channel = channel
        self.handler = handler
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
        let handler: NIOLoopBound<RedisCommandHandler>
        do {
            let address = try await Self.resolve(endpoint)
            let remaining = deadline - .now()
            guard remaining > .zero else { throw RateLimitStoreError.timeout.with(detail: "connect") }
            (channel, handler) = try await ClientBootstrap(group: eventLoopGroup)
                .connectTimeout(remaining)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .connect(to: address) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handler = RedisCommandHandler(stallLimit: stallLimit)
                        try channel.pipeline.syncOperations.addHandler(handler)
                        return (channel, NIOLoopBound(handler, eventLoop: channel.eventLoop))
                    }
                }
        } catch let error as RateLimitStoreError {
            throw error
        } catch ChannelError.connectTimeout(let after) {
            throw .timeout.with(detail: "connect timed out after \(after)")
        } catch {
            throw .unavailable.with(detail: "connect: \(error)")
        }

        let connection = RedisConnection(channel: channel, handler: handler)
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
    func send(_ command: some RESPEncodable & Sendable, asking: Bool = false, deadline: NIODeadline) async throws(RateLimitStoreError) -> RESPValue {
        guard deadline > .now() else { throw .timeout }
        let promise = self.channel.eventLoop.makePromise(of: RESPValue.self)
        let handler = self.handler
        let enqueue: @Sendable () -> Void = {
            handler.value.enqueue(command, asking: asking, deadline: deadline) { result in promise.completeWith(result.mapError { $0 as any Error }) }
        }
        if self.channel.eventLoop.inEventLoop {
            enqueue()
        } else {
            self.channel.eventLoop.execute(enqueue)
        }
        do {
            return try await promise.futureResult.get()
        } catch let error as RateLimitStoreError {
            throw error
        } catch {
            throw .unavailable.with(detail: "\(error)")
        }
    }

    /// Sends `command` from the connection's own event loop; `reply` gets its reply (or why there is none) on that
    /// loop. No future and no task: the command leaves with the others of this loop tick. Errors as for `send`.
    func send(_ command: some RESPEncodable, deadline: NIODeadline, onLoop reply: @escaping RedisReplyHandler) {
        self.handler.value.enqueue(command, asking: false, deadline: deadline, reply: reply)
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
