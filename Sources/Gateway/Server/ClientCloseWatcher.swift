import NIOConcurrencyHelpers
import NIOCore

/// Watches a connection for the client going away, without reading anything itself, so a handler can cancel work
/// nobody will receive. Two degrees of going away: the client's half of the connection closed (it sends nothing
/// more, and may still read: RFC 9112 §9.6 lets a client half-close after its request), or the whole channel.
///
/// One callback at a time: a connection's requests are handled one after another, and each handler
/// that watches removes its callback when it is done, so a long-lived keep-alive connection holds nothing per
/// request it has served.
final class ClientCloseWatcher: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    private struct State {
        var inputClosed = false
        var inactive = false
        var callback: (@Sendable () -> Void)?
        /// The callback runs on the half-close too, not only once the channel is gone.
        var onHalfClose = true
    }

    private let state: NIOLockedValueBox<State>

    /// - Parameter alreadyClosed: a watcher for a connection that is gone already (its callbacks run at once).
    init(alreadyClosed: Bool = false) {
        self.state = NIOLockedValueBox(State(inputClosed: alreadyClosed, inactive: alreadyClosed))
    }

    /// Runs `callback` once if the client goes away before ``unwatch()`` (at once if it already has).
    /// - Parameter onHalfClose: whether a client that has only closed its sending half counts as gone. Work whose
    ///   answer is cheap to wait for (a proxied exchange, as HAProxy without `abortonclose`) says false; expensive
    ///   work (an AI function) says true, since most clients that stop sending have left.
    func watch(onHalfClose: Bool = true, _ callback: @escaping @Sendable () -> Void) {
        let runNow = self.state.withLockedValue { state -> Bool in
            if state.inactive || (onHalfClose && state.inputClosed) { return true }
            state.callback = callback
            state.onHalfClose = onHalfClose
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
        if let event = event as? ChannelEvent, event == .inputClosed { self.clientClosed(whole: false) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.clientClosed(whole: true)
        context.fireChannelInactive()
    }

    /// The client closed its sending half (`whole` false) or the whole connection: told by the pipeline's events, or
    /// by a handler that keeps its own watcher (``BuiltinExchange``).
    func clientClosed(whole: Bool) {
        let callback = self.state.withLockedValue { state -> (@Sendable () -> Void)? in
            state.inputClosed = true
            if whole { state.inactive = true }
            guard let callback = state.callback, whole || state.onHalfClose else { return nil }
            state.callback = nil
            return callback
        }
        callback?()
    }
}
