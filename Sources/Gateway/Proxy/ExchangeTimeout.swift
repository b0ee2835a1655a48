import NIOCore
import Synchronization

/// The route's `timeout_seconds` on one exchange, up to the response head (Envoy's route timeout): the upstream has
/// that long to answer once the request has been sent whole, and, while a body streams up, to take each part of it.
/// Waiting for the client's body is not counted: a client that stops sending is ``ConnectionGuard``'s (408). On expiry
/// the connection is closed, which ends whatever waits on it, and ``expired`` says why.
final class ExchangeTimeout: Sendable {
    private enum State {
        case waiting
        case running(Scheduled<Void>)
        case finished
    }

    private let timeout: TimeAmount
    private let connection: UpstreamConnection
    private let state = Mutex<State>(.waiting)
    private let didExpire = Atomic<Bool>(false)

    init(timeout: TimeAmount, connection: UpstreamConnection) {
        self.timeout = timeout
        self.connection = connection
    }

    /// The clock ran out: the upstream did not answer (or take the body) in time.
    var expired: Bool { self.didExpire.load(ordering: .relaxed) }

    /// Starts the clock, unless it runs already or the exchange has its head.
    func start() {
        self.state.withLock { state in
            guard case .waiting = state else { return }
            state = .running(
                self.connection.channel.eventLoop.scheduleTask(in: self.timeout) {
                    self.didExpire.store(true, ordering: .relaxed)
                    self.connection.close()
                }
            )
        }
    }

    /// Stops the clock until the next ``start()``: the upstream took a part of the body.
    func pause() {
        self.state.withLock { state in
            guard case .running(let scheduled) = state else { return }
            scheduled.cancel()
            state = .waiting
        }
    }

    /// Stops the clock for good: the exchange has its response head, or failed.
    func finish() {
        self.state.withLock { state in
            if case .running(let scheduled) = state { scheduled.cancel() }
            state = .finished
        }
    }
}
