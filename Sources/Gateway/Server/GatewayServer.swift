import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
public import ServiceLifecycle

/// The HTTP/1.1 listener: HummingbirdCore's NIO server with the gateway's responder and the server limits
/// (header size and count, header-read and idle timeouts, open connections). On graceful shutdown it marks the
/// gateway as draining, stops accepting, and lets requests in flight finish.
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
        let responder = self.responder
        let onServerRunning = self.onServerRunning
        let logger = self.logger
        let limits = self.limits
        let headerTimeout = TimeAmount.interval(seconds: limits.headerTimeoutSeconds)
        let bodyTimeout = TimeAmount.interval(seconds: limits.bodyTimeoutSeconds)
        let http1 = HTTP1Channel(
            responder: { request, writer, channel in
                try await responder.current().respond(to: request, writer: writer, channel: channel)
            },
            configuration: .init(
                additionalChannelHandlers: [
                    ClientCloseWatcher(),
                    ConnectionGuard(headerTimeout: headerTimeout, bodyTimeout: bodyTimeout, requestIDs: responder.current().requestIDs),
                ],
                idleTimeout: .interval(seconds: limits.idleTimeoutSeconds),
                httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: limits.maxHeaderBytes, maxHeaderListSize: limits.maxHeaderBytes,
                    maxHeaderFieldCount: limits.maxHeaderCount
                )
            )
        )
        let raw =
            limits.rawPath
            ? RawPathHandler.Limits(
                maxHeadBytes: limits.maxHeaderBytes, maxFields: limits.maxHeaderCount, headerTimeout: headerTimeout,
                idleTimeout: .interval(seconds: limits.idleTimeoutSeconds), bodyTimeout: bodyTimeout
            ) : nil
        let server = EventLoopPinnedHTTP1Channel(http1: http1, responder: responder, raw: raw).server(
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
                throw ListenError(host: self.host, port: self.port, error: error) ?? error
            }
        } onGracefulShutdown: { [drain] in
            drain.startDraining()
            logger.notice("draining: no new connections; requests in flight may finish", metadata: ["grace_seconds": .stringConvertible(limits.shutdownGraceSeconds)])
        }
    }
}
