import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// A local HTTP/1.1 test server's listener: HummingbirdCore's server on `127.0.0.1` and an ephemeral port, run in a
/// ServiceGroup of its own, with its requests and connections counted. Shared by ``LocalHTTPServer`` and
/// ``UpstreamTestServer``, which differ only in how they answer.
struct LocalListener: Sendable {
    let port: Int
    let stats: LocalConnectionStats
    private let task: Task<Void, Never>
    private let group: ServiceGroup

    /// Starts a server answering with `responder` (each request counted first); returns once it listens.
    static func start(
        backlog: Int = 256, logger: Logger, responder: @escaping HTTPChannelHandler.Responder
    ) async throws -> LocalListener {
        let stats = LocalConnectionStats()
        let promise = LocalListenerStartup.PortPromise()
        let server = try HTTPServerBuilder.http1(
            configuration: .init(additionalChannelHandlers: [LocalConnectionObserver(stats: stats)])
        ).buildServer(
            // No SO_REUSEADDR with port 0: Linux can then hand one ephemeral port to two binding sockets.
            configuration: .init(address: .hostname("127.0.0.1", port: 0), backlog: backlog, reuseAddress: false),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: logger,
            responder: { request, writer, channel in
                stats.requestReceived()
                try await responder(request, writer, channel)
            },
            onServerRunning: { channel in
                promise.listening(channel)
            }
        )
        let (port, task, group) = try await LocalListenerStartup.run(promise, server)
        return LocalListener(port: port, stats: stats, task: task, group: group)
    }

    /// See ``LocalListenerStartup/stop(_:_:)``.
    func stop() async {
        await LocalListenerStartup.stop(self.group, self.task)
    }
}

/// Runs a local server's `Service` in a task and waits until it listens (or fails to), returning its port.
enum LocalListenerStartup {
    /// Resumed exactly once: with the port when listening, or with the error if `run()` failed first.
    final class PortPromise: Sendable {
        private let continuation = Mutex<CheckedContinuation<Int, any Error>?>(nil)

        func set(_ continuation: CheckedContinuation<Int, any Error>) {
            self.continuation.withLock { $0 = continuation }
        }

        func resume(with result: Result<Int, any Error>) {
            let continuation = self.continuation.withLock { value in
                defer { value = nil }
                return value
            }
            continuation?.resume(with: result)
        }

        /// For `onServerRunning`: the bound channel's port.
        func listening(_ channel: any Channel) {
            if let port = channel.localAddress?.port {
                self.resume(with: .success(port))
            } else {
                self.resume(with: .failure(ChannelError.unknownLocalAddress))
            }
        }
    }

    /// Starts `makeService` in a new task; returns the port and the task (cancel it to stop the server).
    /// Runs `service` in its own ServiceGroup (so it can be shut down gracefully) until it stops.
    static func run(_ promise: PortPromise, _ service: any Service) async throws -> (port: Int, task: Task<Void, Never>, group: ServiceGroup) {
        var task: Task<Void, Never>?
        let group = ServiceGroup(
            configuration: .init(services: [.init(service: service)], logger: Logger(label: "LocalListener", factory: { _ in SwiftLogNoOpLogHandler() }))
        )
        let port = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int, any Error>) in
            promise.set(continuation)
            task = Task {
                do {
                    try await group.run()
                    promise.resume(with: .failure(CancellationError()))
                } catch {
                    promise.resume(with: .failure(error))
                }
            }
        }
        return (port, task!, group)
    }

    /// Stops a server started by ``run(_:_:)``: graceful shutdown first (the listener closes, nothing new is
    /// accepted), then, after a moment, the task is cancelled for handlers that hang on purpose. Cancelling first
    /// would race with connections being accepted, which NIO answers with a crash ("Deinited NIOAsyncWriter
    /// without calling finish()").
    static func stop(_ group: ServiceGroup, _ task: Task<Void, Never>) async {
        await group.triggerGracefulShutdown()
        let canceller = Task {
            try? await Task.sleep(for: .milliseconds(200))
            task.cancel()
        }
        await task.value
        canceller.cancel()
    }
}
