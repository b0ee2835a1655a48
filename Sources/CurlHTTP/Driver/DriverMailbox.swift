import Synchronization

/// Where callers and the driver thread meet: the ``ClientStateMachine`` and the multi handle's waker,
/// behind one `Mutex`. Every method decides under the lock and resumes continuations after releasing it.
final class DriverMailbox: Sendable {
    typealias Continuation = CheckedContinuation<CurlResponse, any Error>
    typealias StateMachine = ClientStateMachine<CurlRequest, Continuation>

    private struct Locked {
        var machine = StateMachine()
        /// Set while the driver runs; dropped (under the lock) before the multi handle is cleaned up.
        var waker: CurlWaker?
    }

    private let locked = Mutex(Locked())
    private let nextID = Atomic<UInt64>(0)

    /// A fresh transfer id.
    func makeTransferID() -> TransferID {
        TransferID(rawValue: self.nextID.wrappingAdd(1, ordering: .relaxed).newValue)
    }

    // MARK: Callers

    /// Queues a call, or resumes it at once with ``CurlError/shutdown`` or ``CurlError/cancelled``.
    func submit(_ id: TransferID, _ request: CurlRequest, _ continuation: Continuation) {
        let action = self.locked.withLock { locked in
            let action = locked.machine.execute(id, request, continuation, taskIsCancelled: Task.isCancelled)
            if case .queued(wakeDriver: true) = action { locked.waker?.wakeup() }
            return action
        }
        if case .fail(let continuation, let error) = action {
            continuation.resume(throwing: error)
        }
    }

    /// The task behind `id` was cancelled.
    func cancel(_ id: TransferID) {
        let action = self.locked.withLock { locked in
            let action = locked.machine.cancel(id)
            if case .driverRemoves(wakeDriver: true) = action { locked.waker?.wakeup() }
            return action
        }
        if case .resumeCancelled(let continuation) = action {
            continuation.resume(throwing: CurlError.cancelled)
        }
    }

    // MARK: Lifecycle

    /// Moves the client to running with the driver's waker; `false` if it already ran.
    func beginRunning(waker: CurlWaker) -> Bool {
        self.locked.withLock { locked in
            guard locked.machine.run() else { return false }
            locked.waker = waker
            return true
        }
    }

    /// Starts shutting down: fails queued calls and wakes the driver so it stops.
    func requestShutdown() {
        let action = self.locked.withLock { locked in
            let action = locked.machine.shutdown()
            if action.wakeDriver { locked.waker?.wakeup() }
            return action
        }
        for (continuation, error) in action.fail {
            continuation.resume(throwing: error)
        }
    }

    // MARK: Driver thread

    /// The driver takes its queued work.
    func takeWork() -> StateMachine.DriverWork {
        self.locked.withLock { $0.machine.takeDriverWork() }
    }

    /// A transfer ended (already out of the multi handle): resumes its caller with `result`,
    /// or with ``CurlError/cancelled`` if the caller cancelled meanwhile.
    func complete(_ id: TransferID, with result: Result<CurlResponse, CurlError>) {
        guard let (continuation, wasCancelled) = self.locked.withLock({ $0.machine.transferCompleted(id) }) else { return }
        continuation.resume(with: wasCancelled ? .failure(CurlError.cancelled) : result.mapError { $0 })
    }

    /// The driver removed every transfer: drops the waker, stops the client and fails what was left.
    func driverStopped() {
        let failed = self.locked.withLock { locked in
            locked.waker = nil
            return locked.machine.driverStopped()
        }
        for (continuation, error) in failed {
            continuation.resume(throwing: error)
        }
    }
}
