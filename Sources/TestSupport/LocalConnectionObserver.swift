import NIOCore
import Synchronization

/// Counts a local server's connections and requests, and lets tests wait for clients to go away.
///
/// Fed by ``LocalConnectionObserver`` handlers on the event loops; read from tests.
final class LocalConnectionStats: Sendable {
    private struct State {
        var accepted = 0
        var closed = 0
        var requests = 0
        var waiters: [(id: UInt64, atLeast: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextWaiterID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Connections accepted so far.
    var accepted: Int { self.state.withLock { $0.accepted } }
    /// Connections the client closed (or that closed) so far.
    var closed: Int { self.state.withLock { $0.closed } }

    /// Requests received so far.
    var requests: Int { self.state.withLock { $0.requests } }

    func requestReceived() {
        self.state.withLock { $0.requests += 1 }
    }

    func connectionAccepted() {
        self.state.withLock { $0.accepted += 1 }
    }

    func connectionClosed() {
        let ready = self.state.withLock { state in
            state.closed += 1
            let closed = state.closed
            let ready = state.waiters.filter { $0.atLeast <= closed }
            state.waiters.removeAll { $0.atLeast <= closed }
            return ready
        }
        for waiter in ready {
            waiter.continuation.resume()
        }
    }

    /// Returns once at least `count` connections have closed, or when the calling task is cancelled.
    func waitForClosed(atLeast count: Int) async {
        let id = self.state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = self.state.withLock { state in
                    if state.closed >= count || Task.isCancelled { return true }
                    state.waiters.append((id, count, continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = self.state.withLock { state in
                let index = state.waiters.firstIndex { $0.id == id }
                return index.map { state.waiters.remove(at: $0) }
            }
            waiter?.continuation.resume()
        }
    }
}

/// A pass-through channel handler that reports its connection's start and end to ``LocalConnectionStats``.
///
/// A connection counts as closed at the first of: the client half-closing (`inputClosed`, as the local
/// servers allow half-closure) or the channel going inactive.
final class LocalConnectionObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let stats: LocalConnectionStats
    private var reportedClose = false

    init(stats: LocalConnectionStats) {
        self.stats = stats
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.stats.connectionAccepted()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.reportClose()
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .some(ChannelEvent.inputClosed) = event as? ChannelEvent {
            self.reportClose()
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func reportClose() {
        guard !self.reportedClose else { return }
        self.reportedClose = true
        self.stats.connectionClosed()
    }
}
