import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
public import ServiceLifecycle

/// The HTTP/1.1 listener: HummingbirdCore's NIO server with the gateway's responder. On graceful shutdown it
/// stops accepting and lets requests in flight finish.
public struct GatewayServer: Service {
    let host: String
    let port: Int
    let responder: GatewayResponder
    let logger: Logger
    let onServerRunning: @Sendable (Int) async -> Void

    public func run() async throws {
        let responder = self.responder
        let onServerRunning = self.onServerRunning
        let logger = self.logger
        let server = try HTTPServerBuilder.http1(
            configuration: .init(additionalChannelHandlers: [ClientCloseWatcher()], idleTimeout: .seconds(75))
        ).buildServer(
            // SO_REUSEADDR lets a restarted gateway rebind its port at once; with port 0 (any free port) it is
            // left off, since Linux can then hand one ephemeral port to two sockets binding at the same time.
            configuration: .init(
                address: .hostname(self.host, port: self.port), serverName: nil, backlog: 1024, reuseAddress: self.port != 0
            ),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: self.logger,
            responder: { request, writer, channel in
                try await responder.respond(to: request, writer: writer, channel: channel)
            },
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.notice("storygate listening", metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
                await onServerRunning(port)
            }
        )
        try await server.run()
    }
}
