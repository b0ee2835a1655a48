import NIOCore
import NIOHTTP1

/// The request rules that depend on the HTTP version, checked between SwiftNIO's HTTP/1 decoder and the conversion
/// to HTTP types (which drops the version). A request that breaks one is refused with a 400 `MALFORMED_REQUEST` by
/// ``ConnectionGuard`` and the connection closes; nothing of it reaches a handler or an upstream.
///
/// - An HTTP/1.0 request with `Transfer-Encoding` has faulty framing (RFC 9112 §6.1: the sender may have kept part
///   of the message, and whatever follows could be read as another request — a smuggling vector).
/// - An HTTP/1.1 request without `Host` (RFC 9112 §3.2: a server MUST answer 400). An HTTP/1.0 one may have none
///   (health checks often send none). A second `Host` line is refused by ``RequestFraming``, for every version.
final class HTTPVersionCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// Set once a request is refused: nothing more of the connection is passed on.
    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.refused else { return }
        if case .head(let head) = self.unwrapInboundIn(data), !Self.isAcceptable(head) {
            self.refused = true
            context.fireErrorCaught(FaultyFraming())
            return
        }
        context.fireChannelRead(data)
    }

    static func isAcceptable(_ head: HTTPRequestHead) -> Bool {
        switch head.version {
        case .http1_0: !head.headers.contains(name: "transfer-encoding")
        case .http1_1: head.headers.contains(name: "host")
        default: true
        }
    }
}

/// A request whose framing cannot be trusted, refused as ``ConnectionGuard`` refuses a parser error.
struct FaultyFraming: Error {}
