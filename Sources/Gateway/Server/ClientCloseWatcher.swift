import NIOConcurrencyHelpers
import NIOCore

/// Watches a connection for the client going away (its half of the connection closed, or the whole channel),
/// without reading anything itself, so a handler can cancel expensive work nobody will receive.
final class ClientCloseWatcher: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    private let state = NIOLockedValueBox<(closed: Bool, callbacks: [@Sendable () -> Void])>((false, []))

    /// Runs `callback` once when the client goes away (at once if it already has).
    func onClose(_ callback: @escaping @Sendable () -> Void) {
        let runNow = self.state.withLockedValue { state -> Bool in
            if state.closed { return true }
            state.callbacks.append(callback)
            return false
        }
        if runNow { callback() }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { self.closed() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.closed()
        context.fireChannelInactive()
    }

    private func closed() {
        let callbacks = self.state.withLockedValue { state -> [@Sendable () -> Void] in
            guard !state.closed else { return [] }
            state.closed = true
            defer { state.callbacks = [] }
            return state.callbacks
        }
        for callback in callbacks { callback() }
    }
}
