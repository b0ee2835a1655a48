import NIOPosix
import Synchronization

/// The responder requests are answered by now: routes, rate limiter, authenticator and access log in one immutable
/// object, replaced whole by a reload (``GatewayReloader``). Readers never lock per request: they keep the responder
/// they have while the generation (one relaxed atomic load) is the one they took it at, and fetch the new one under
/// the lock only when it moved. A request keeps the responder it started with, so its route, limits and
/// authentication always come from one configuration.
final class LiveResponder: Sendable {
    private let published: Mutex<Published>
    private let generationCounter = Atomic<Int>(0)
    /// For readers with nowhere of their own to keep it (the connection tasks): one copy per thread.
    private let perThread = ThreadSpecificVariable<Published>()

    final class Published: Sendable {
        let responder: GatewayResponder
        let generation: Int

        init(_ responder: GatewayResponder, generation: Int) {
            self.responder = responder
            self.generation = generation
        }

        var pair: (GatewayResponder, Int) { (self.responder, self.generation) }
    }

    init(_ responder: GatewayResponder) {
        self.published = Mutex(Published(responder, generation: 0))
    }

    /// Moves on every publication.
    var generation: Int { self.generationCounter.load(ordering: .relaxed) }

    /// The responder and its generation, for a reader that keeps them until ``generation`` moves.
    func load() -> Published {
        self.published.withLock { $0 }
    }

    /// The responder now, through this thread's copy.
    func current() -> GatewayResponder {
        if let copy = self.perThread.currentValue, copy.generation == self.generation { return copy.responder }
        let published = self.load()
        self.perThread.currentValue = published
        return published.responder
    }

    /// Makes `responder` the one new requests get.
    func publish(_ responder: GatewayResponder) {
        self.published.withLock { published in
            let next = published.generation + 1
            published = Published(responder, generation: next)
            self.generationCounter.store(next, ordering: .releasing)
        }
    }
}
