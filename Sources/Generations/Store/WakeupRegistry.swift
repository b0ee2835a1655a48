import Synchronization

/// Waiters in this process, by what they wait for (a scope, a job id, a queue): a change this process makes wakes
/// them at once. A waiter removes its `Wakeup` when it stops waiting, so polling waiters leave nothing behind.
final class WakeupRegistry<Key: Hashable & Sendable>: Sendable {
    private let waiters = Mutex<[Key: [Wakeup]]>([:])

    init() {}

    /// A new `Wakeup`, signalled by the next ``signal(_:)`` of `key`.
    func register(_ key: Key) -> Wakeup {
        let wakeup = Wakeup()
        self.waiters.withLock { $0[key, default: []].append(wakeup) }
        return wakeup
    }

    /// Forgets `wakeup` (its waiter stopped waiting).
    func remove(_ wakeup: Wakeup, for key: Key) {
        self.waiters.withLock { waiters in
            guard var list = waiters[key] else { return }
            list.removeAll { $0 === wakeup }
            waiters[key] = list.isEmpty ? nil : list
        }
    }

    /// Wakes every waiter for `key`.
    func signal(_ key: Key) {
        let woken = self.waiters.withLock { $0.removeValue(forKey: key) ?? [] }
        for wakeup in woken { wakeup.signal() }
    }

    /// Waiters registered and not yet woken or removed (for tests).
    var count: Int { self.waiters.withLock { $0.values.reduce(0) { $0 + $1.count } } }
}
