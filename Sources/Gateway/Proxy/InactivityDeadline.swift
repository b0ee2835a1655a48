import NIOCore
import Synchronization

/// Closes an upstream connection that stops moving for the route's timeout: an answer with no part read from the
/// upstream and none written on to the client (HAProxy's `timeout server` and `timeout client` in one, as inactivity,
/// not a limit on the whole answer); and, up to the answer's head, an upstream that does not take a part of the body
/// or answer the request sent whole (Envoy's route timeout; the exchange holds the clock while it waits for the
/// client's body). The task path touches it from its tasks; one check, scheduled on the connection's event loop and
/// moved only when it fires early, does the rest (no timer per part).
final class InactivityDeadline: Sendable {
    private let timeout: TimeAmount
    /// `NIODeadline.uptimeNanoseconds` of the deadline; ``held`` while the clock stands still; 0 once stopped or
    /// expired (whichever came first: exactly one of them does, so a connection the deadline closed is never also
    /// handed on).
    private let deadline: Atomic<UInt64>
    private static let held = UInt64.max

    /// Starts the clock: `expired` runs on `eventLoop` once nothing has touched the deadline for `timeout`.
    init(timeout: TimeAmount, on eventLoop: any EventLoop, expired: @escaping @Sendable () -> Void) {
        self.timeout = timeout
        let first = NIODeadline.now() + timeout
        self.deadline = Atomic(first.uptimeNanoseconds)
        self.check(at: first, on: eventLoop, expired: expired)
    }

    /// The exchange moved: the clock starts again from now (also after ``hold()``).
    func touch() {
        self.replace(with: (NIODeadline.now() + self.timeout).uptimeNanoseconds)
    }

    /// The clock stands still until the next ``touch()``: what the exchange waits for is not the upstream.
    func hold() {
        self.replace(with: Self.held)
    }

    /// Never revives a deadline that was stopped or has expired meanwhile (0).
    private func replace(with next: UInt64) {
        var current = self.deadline.load(ordering: .relaxed)
        while current != 0 {
            let (exchanged, found) = self.deadline.compareExchange(expected: current, desired: next, ordering: .relaxed)
            if exchanged { return }
            current = found
        }
    }

    /// The answer ended (or failed): the deadline no longer applies. Returns false when the deadline had already
    /// expired (`expired` has run or is running): whatever it closes must not be handed on.
    @discardableResult
    func stop() -> Bool {
        self.deadline.exchange(0, ordering: .relaxed) != 0
    }

    private func check(at when: NIODeadline, on eventLoop: any EventLoop, expired: @escaping @Sendable () -> Void) {
        eventLoop.scheduleTask(deadline: when) {
            while true {
                let current = self.deadline.load(ordering: .relaxed)
                guard current != 0 else { return }
                // Held: looked at again a timeout from now, at the latest when a touch now would be due.
                guard current != Self.held else {
                    self.check(at: .now() + self.timeout, on: eventLoop, expired: expired)
                    return
                }
                let deadline = NIODeadline.uptimeNanoseconds(current)
                guard deadline <= .now() else {
                    self.check(at: deadline, on: eventLoop, expired: expired)
                    return
                }
                // Expired, unless `stop` or `touch` got there first (then look again).
                if self.deadline.compareExchange(expected: current, desired: 0, ordering: .relaxed).exchanged {
                    expired()
                    return
                }
            }
        }
    }
}
