import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

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
