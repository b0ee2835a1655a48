import NIOConcurrencyHelpers
import NIOCore

/// Watches a connection for the client going away (its half of the connection closed, or the whole channel),
/// without reading anything itself, so a handler can cancel expensive work nobody will receive.
///
/// One callback at a time: HummingbirdCore handles a connection's requests one after another, and each handler
/// that watches removes its callback when it is done, so a long-lived keep-alive connection holds nothing per
/// request it has served.
final class ClientCloseWatcher: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    private let state: NIOLockedValueBox<(closed: Bool, callback: (@Sendable () -> Void)?)>

    /// - Parameter alreadyClosed: a watcher for a connection that is gone already (its callbacks run at once).
    init(alreadyClosed: Bool = false) {
        self.state = NIOLockedValueBox((alreadyClosed, nil))
    }

    /// Runs `callback` once if the client goes away before ``unwatch()`` (at once if it already has).
    func watch(_ callback: @escaping @Sendable () -> Void) {
        let runNow = self.state.withLockedValue { state -> Bool in
            if state.closed { return true }
            state.callback = callback
            return false
        }
        if runNow { callback() }
    }

    /// Stops watching; once this returns the callback will not run.
    func unwatch() {
        self.state.withLockedValue { $0.callback = nil }
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
        let callback = self.state.withLockedValue { state -> (@Sendable () -> Void)? in
            guard !state.closed else { return nil }
            state.closed = true
            defer { state.callback = nil }
            return state.callback
        }
        callback?()
    }
}
