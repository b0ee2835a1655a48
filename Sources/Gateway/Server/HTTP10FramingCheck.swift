import NIOCore
import NIOHTTP1

/// An HTTP/1.0 request with `Transfer-Encoding` has faulty framing (RFC 9112 §6.1: the sender may have kept part
/// of the message, and whatever follows could be read as another request — a smuggling vector): it is refused with
/// a 400 `MALFORMED_REQUEST` by ``ConnectionGuard`` and the connection closes; nothing of it reaches a handler or
/// an upstream. It sits between SwiftNIO's HTTP/1 decoder and the conversion to HTTP types, which drops the version.
final class HTTP10FramingCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    /// Set once a request is refused: nothing more of the connection is passed on.
    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.refused else { return }
        if case .head(let head) = self.unwrapInboundIn(data), head.version == .http1_0, head.headers.contains(name: "transfer-encoding") {
            self.refused = true
            context.fireErrorCaught(FaultyFraming())
            return
        }
        context.fireChannelRead(data)
    }
}

/// A request whose framing cannot be trusted, refused as ``ConnectionGuard`` refuses a parser error.
struct FaultyFraming: Error {}
