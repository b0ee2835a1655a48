import HummingbirdCore
import NIOCore

/// Reads the client's request body in its own task into a ``RequestBodyRelay`` that the upstream request reads,
/// counting bytes: past the route's limit it stops reading and fails the relay with ``TooLarge``, so the upstream
/// request fails and the client gets 413 (HummingbirdCore drains the rest of the body once the handler returns).
///
/// The proxy calls ``stop()`` before its response completes, so the connection's inbound stream is never read by
/// two tasks at once (the pump, and HummingbirdCore looking for the next request).
final class RequestBodyPump: Sendable {
    /// The body passed the route's limit.
    struct TooLarge: Error {}
    /// Reading the client's body failed (the client went away, or sent a malformed body).
    struct ClientBodyFailed: Error {}

    let relay: RequestBodyRelay
    private let task: Task<Void, Never>

    init(body: RequestBody, limit: Int) {
        let relay = RequestBodyRelay()
        self.relay = relay
        self.task = Task {
            var received = 0
            do {
                for try await buffer in body {
                    received += buffer.readableBytes
                    guard received <= limit else {
                        relay.finish(throwing: TooLarge())
                        return
                    }
                    try await relay.send(buffer)
                }
                relay.finish()
            } catch {
                // A closed relay (the upstream exchange is over) makes this a no-op.
                relay.finish(throwing: ClientBodyFailed())
            }
        }
    }

    /// Ends the transfer and waits for the reading task. A task still waiting for client bytes is cancelled, which
    /// ends the connection's inbound stream: the connection closes after this response (the upstream answered
    /// before reading the whole body, so the rest of it cannot be told apart from a next request otherwise).
    func stop() async {
        self.relay.close()
        self.task.cancel()
        await self.task.value
    }

    deinit {
        // A response dropped before its body was written (the client went away): never leave the task reading.
        self.relay.close()
        self.task.cancel()
    }
}
