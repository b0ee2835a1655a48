import Synchronization

/// Set once graceful shutdown starts: `/readyz` answers 503 from then on, so load balancers stop sending new
/// requests while those in flight finish.
public final class DrainState: Sendable {
    private let draining = Atomic<Bool>(false)

    public init() {}

    public var isDraining: Bool { self.draining.load(ordering: .relaxed) }

    public func startDraining() {
        self.draining.store(true, ordering: .relaxed)
    }
}
