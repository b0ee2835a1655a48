package import NIOCore
import NIOPosix

/// Flushes asked for while an event loop handles one batch of I/O events, done together once the batch is over.
///
/// Used for the requests sent to upstreams. Flushed one by one, each request wakes its upstream, which then answers
/// and sleeps again while this loop verifies the batch's next token; every wake-up of a sleeping process costs the
/// writer's kernel a reschedule and, when the reader's core is idle, an inter-processor interrupt. Flushed at the
/// batch's end, the requests leave one after another: the first wakes the upstream, which finds the others
/// waiting. The loop runs its tasks right after the batch's I/O events, so a request waits at most for the rest
/// of the batch. Envoy defers its writes to the end of the event-loop iteration in the same way.
///
/// One per event-loop thread, touched only on that thread (hence the unchecked `Sendable`).
package final class LoopFlushes: @unchecked Sendable {
    private static let current = ThreadSpecificVariable<LoopFlushes>()

    private let eventLoop: any EventLoop
    private var contexts: [ChannelHandlerContext] = []
    /// The list being flushed, kept for its capacity.
    private var flushing: [ChannelHandlerContext] = []

    private init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        self.contexts.reserveCapacity(64)
        self.flushing.reserveCapacity(64)
    }

    /// Flushes `context` once its event loop's current batch of events is over. Call on that loop.
    package static func flushLater(_ context: ChannelHandlerContext) {
        context.eventLoop.assertInEventLoop()
        let flushes: LoopFlushes
        if let existing = Self.current.currentValue, existing.eventLoop === context.eventLoop {
            flushes = existing
        } else {
            // The thread's first flush, or a thread that runs several loops one after another (test loops): a
            // list for this loop. One made for another loop still flushes its own list, in that loop's task.
            flushes = LoopFlushes(eventLoop: context.eventLoop)
            Self.current.currentValue = flushes
        }
        flushes.add(context)
    }

    private func add(_ context: ChannelHandlerContext) {
        if self.contexts.isEmpty {
            self.eventLoop.assumeIsolatedUnsafeUnchecked().execute { self.flushAll() }
        }
        self.contexts.append(context)
    }

    private func flushAll() {
        // A flush that leads to another flush being asked for: that one goes in a fresh list, flushed by a task of
        // its own right after this one. The flush of a channel closed meanwhile does nothing.
        swap(&self.contexts, &self.flushing)
        for context in self.flushing { context.flush() }
        self.flushing.removeAll(keepingCapacity: true)
    }
}
