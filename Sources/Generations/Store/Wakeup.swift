import Synchronization

/// A one-shot wake-up: ``wait(until:)`` returns once ``signal()`` is called or at the deadline, whichever is
/// first. Registries of waiters hold these, so a waiter that timed out costs nothing to signal later.
final class Wakeup: Sendable {
    private struct State {
        var signalled = false
        var continuation: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    init() {}

    func signal() {
        let continuation = self.state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.signalled = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }

    /// Returns when signalled (at once if it was already), at `deadline`, or when the task is cancelled.
    func wait(until deadline: ContinuousClock.Instant) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let signalled = self.state.withLock { state -> Bool in
                        if state.signalled { return true }
                        state.continuation = continuation
                        return false
                    }
                    if signalled { continuation.resume() }
                }
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                self.signal()
            }
            await group.next()
            group.cancelAll()
        }
    }
}
