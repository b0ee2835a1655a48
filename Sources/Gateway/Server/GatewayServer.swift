import GatewayConfig
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
public import ServiceLifecycle

/// The HTTP/1.1 listener: HummingbirdCore's accept loop (open-connection limit, graceful shutdown) with one
/// ``ConnectionHandler`` on each connection, under the server limits (header size and count, header, body and idle
/// timeouts). On graceful shutdown it marks the gateway as draining, stops accepting, and lets requests in flight finish.
public struct GatewayServer: Service {
    let host: String
    let port: Int
    let limits: ServerLimits
    /// The responder, replaced whole by a reload.
    let responder: LiveResponder
    let drain: DrainState
    let logger: Logger
    let onServerRunning: @Sendable (Int) async -> Void

    public func run() async throws {
        let onServerRunning = self.onServerRunning
        let logger = self.logger
        let limits = self.limits
        let connection = ConnectionStateMachine.Limits(
            maxHeadBytes: limits.maxHeaderBytes, maxFields: limits.maxHeaderCount,
            headerTimeout: .interval(seconds: limits.headerTimeoutSeconds), idleTimeout: .interval(seconds: limits.idleTimeoutSeconds),
            bodyTimeout: .interval(seconds: limits.bodyTimeoutSeconds)
        )
        let server = GatewayChildChannel(responder: self.responder, limits: connection).server(
            // SO_REUSEADDR lets a restarted gateway rebind its port at once; with port 0 (any free port) it is
            // left off, since Linux can then hand one ephemeral port to two sockets binding at the same time.
            configuration: .init(
                address: .hostname(self.host, port: self.port), serverName: nil, backlog: 1024, reuseAddress: self.port != 0,
                availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections, logger: logger)
            ),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.notice("storygate listening", metadata: ListeningLine.metadata(channel.localAddress))
                await onServerRunning(port)
            },
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: ListeningLine.serverLogger(self.logger)
        )
        try await withGracefulShutdownHandler {
            do {
                try await server.run()
            } catch {
                // Binding (an IOError) and resolving the host (a SocketAddressError) name the address; others pass.
                throw ListenError(host: self.host, port: self.port, setting: "PORT (listen.port in the file, --port) to a free port", error: error) ?? error
            }
        } onGracefulShutdown: { [drain] in
            drain.startDraining()
            logger.notice("draining: no new connections; requests in flight may finish", metadata: ["grace_seconds": .stringConvertible(limits.shutdownGraceSeconds)])
        }
    }
}

/// An accepted connection: its one handler, and a task that lasts as long as the connection (the server's graceful
/// shutdown waits for those tasks).
struct GatewayChildChannel: ServerChildChannel {
    struct Value: ServerChildChannelValue {
        let channel: any Channel
    }

    let responder: LiveResponder
    let limits: ConnectionStateMachine.Limits

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ConnectionHandler(responder: self.responder, limits: self.limits))
            return Value(channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        try? await value.channel.closeFuture.get()
    }
}
