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
