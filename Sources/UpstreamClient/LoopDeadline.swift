package import NIOCore

/// A deadline on a channel's event loop, checked by one lazily scheduled timer: moving it later, as most moves do
/// (a new request, another read), costs nothing — the timer fires at the old time and re-arms for the new one;
/// moving it earlier replaces the timer; clearing it leaves the timer to find nothing. A timer scheduled and
/// cancelled per request would cost two heap operations each time. Confined to its event loop, like the handler
/// that owns it; `expired` runs there once the deadline has passed.
///
/// `expired` may hold its owner `unowned`: the owner calls ``stop()`` when it goes (a handler's `handlerRemoved`),
/// which drops `expired`, so it never runs after that. A `weak` reference would give the owner a side table, and
/// every retain of it (SwiftNIO retains a handler for each event it delivers) would take the slow path.
package final class LoopDeadline {
    private let eventLoop: any EventLoop
    private var expired: (() -> Void)?
    package private(set) var deadline: NIODeadline?
    private var timer: Scheduled<Void>?
    /// When `timer` fires (kept apart, so that comparing with it touches no reference).
    private var timerAt: NIODeadline?

    package init(on eventLoop: any EventLoop, expired: @escaping () -> Void) {
        self.eventLoop = eventLoop
        self.expired = expired
    }

    /// Sets or clears the deadline.
    package func set(_ deadline: NIODeadline?) {
        self.deadline = deadline
        guard let deadline else { return }
        if let timerAt = self.timerAt {
            // A timer that fires by then will see this deadline; one that fires later is replaced.
            guard timerAt > deadline else { return }
            self.timer?.cancel()
        }
        self.timerAt = deadline
        self.timer = self.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(deadline: deadline) {
            self.timer = nil
            self.timerAt = nil
            guard let deadline = self.deadline else { return }
            if deadline > self.eventLoop.now {
                self.set(deadline)
            } else {
                self.deadline = nil
                self.expired?()
            }
        }
    }

    /// Clears the deadline, cancels the timer and drops `expired` for good (the owner is done with it).
    package func stop() {
        self.expired = nil
        self.deadline = nil
        self.timer?.cancel()
        self.timer = nil
        self.timerAt = nil
    }
}
