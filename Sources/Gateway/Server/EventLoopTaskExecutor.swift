import HummingbirdCore
import Logging
import NIOCore

/// Runs a task's jobs on one SwiftNIO event loop: the connection's own. With it as the task executor preference of
/// each connection's task, a request is read, handled and answered on the thread that owns its socket, with no hop
/// to Swift's cooperative pool and back (two thread switches a request otherwise). Work that may block (file I/O)
/// or runs long (image and audio processing) opts out with `withTaskExecutorPreference(globalConcurrentExecutor)`.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        self.eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}

/// HummingbirdCore's HTTP/1.1 child channel, with each connection's task pinned to the connection's event loop.
struct EventLoopPinnedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let http1: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        self.http1.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await self.http1.handle(value: value, logger: logger)
        }
    }
}
