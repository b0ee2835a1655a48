import HTTPTypes
import HummingbirdCore
import IDTokens
import Logging
import NIOCore
import NIOPosix
public import ServiceLifecycle

/// The admin listener: `/metrics`, `/healthz`, `/readyz` and `/config` (the effective configuration, secrets
/// redacted) on their own address, apart from the public port. Not on the hot path: a plain HummingbirdCore server
/// with a path switch, no route table, no authentication (it binds loopback by default, as Envoy's admin does).
public struct AdminServer: Service {
    let host: String
    let port: Int
    let handlers: [String: RouteHandler]
    let logger: Logger
    let onServerRunning: @Sendable (Int) async -> Void

    /// The admin paths and their handlers.
    static func handlers(metrics: @escaping RouteHandler, ready: @escaping RouteHandler, configText: @escaping @Sendable () throws -> String) -> [String: RouteHandler] {
        [
            "/metrics": metrics,
            "/healthz": SystemHandlers.health(),
            "/readyz": ready,
            "/config": { _, _ in
                var headers = HTTPFields()
                headers[.contentType] = "application/yaml; charset=utf-8"
                headers[.cacheControl] = "no-store"
                return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: try configText())))
            },
        ]
    }

    public func run() async throws {
        let handlers = self.handlers
        let requestIDs = RequestIDGenerator()
        let logger = self.logger
        let onServerRunning = self.onServerRunning
        let http1 = HTTP1Channel(
            responder: { request, writer, channel in
                let requestID = requestIDs.next()
                var response: Response
                do {
                    guard let handler = handlers[request.uri.path] else { throw GatewayError.notFound() }
                    guard request.method == .get || request.method == .head else { throw GatewayError.methodNotAllowed(allowed: [.get, .head]) }
                    response = try await handler(request, RequestContext(requestID: requestID, identity: nil, channel: channel))
                } catch let error as GatewayError {
                    response = ErrorResponse.make(error, requestID: requestID, now: WallClock.now())
                } catch {
                    logger.error("admin handler failed", metadata: ["error_type": "\(type(of: error))"])
                    response = ErrorResponse.make(.internalError(), requestID: requestID, now: WallClock.now())
                }
                response.headers[GatewayResponder.requestIDHeader] = requestID
                if request.method == .head {
                    var headers = response.headers
                    if let length = response.body.contentLength { headers[.contentLength] = String(length) }
                    response = Response(status: response.status, headers: headers, body: ResponseBody())
                }
                try await writer.write(response: response.head, body: response.body)
            },
            configuration: .init(idleTimeout: .seconds(60))
        )
        let server = Server(
            childChannelSetup: http1,
            configuration: .init(address: .hostname(self.host, port: self.port), serverName: nil, reuseAddress: self.port != 0),
            onServerRunning: { channel in
                logger.notice("storygate listening", metadata: ListeningLine.metadata(channel.localAddress, listener: "admin"))
                await onServerRunning(channel.localAddress?.port ?? 0)
            },
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: ListeningLine.serverLogger(self.logger)
        )
        do {
            try await server.run()
        } catch {
            throw ListenError(host: self.host, port: self.port, setting: "ADMIN_PORT (admin.port in the file) to a free port, or to off", error: error) ?? error
        }
    }
}
