import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

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

/// HummingbirdCore's HTTP/1.1 child channel, with each connection's task pinned to the connection's event loop, the
/// HTTP/1.0 framing check, and the raw path (``RawPathHandler``) in front of everything: the handlers behind it see
/// a connection only once it is handed over (a streamed body, an unusual message).
struct EventLoopPinnedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let http1: HTTP1Channel
    let responder: LiveResponder
    /// nil (tests only): every connection is the task's from the start.
    let raw: RawPathHandler.Limits?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let (responder, raw) = (self.responder, self.raw)
        return self.http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = value.channel.pipeline.syncOperations
            // Where the HTTP/1 version is still known.
            try pipeline.addHandler(RequestLineRules(), position: .before(try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)))
            if let raw { try pipeline.addHandler(RawPathHandler(responder: responder, limits: raw), position: .first) }
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        // The raw path may hand the connection over from now on (see `RawPathHandler.connectionTaken()`).
        if self.raw != nil {
            let channel = value.channel
            channel.eventLoop.execute {
                (try? channel.pipeline.syncOperations.handler(type: RawPathHandler.self))?.connectionTaken()
            }
        }
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await self.http1.handle(value: value, logger: logger)
        }
    }
}
