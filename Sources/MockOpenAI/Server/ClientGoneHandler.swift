import NIOCore

/// Closes the connection when the client closes its side. Added in front of a connection's pipeline while
/// the mock deliberately does not answer (`.hang`): the server allows half-closure, so without it a client
/// that gives up would leave the connection open until the server stops.
final class ClientGoneHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }
}
