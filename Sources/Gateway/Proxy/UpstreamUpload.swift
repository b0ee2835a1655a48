import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import Synchronization

/// A request body streaming to an upstream in its own task (on the connection's event loop), counted against the
/// route's limit, while the exchange waits for the answer.
///
/// It reads the client connection's inbound stream, so it is always stopped before the response completes:
/// HummingbirdCore reads the same stream for the next request afterwards.
final class UpstreamUpload: Sendable {
    enum Outcome: Sendable, Equatable {
        case running
        /// All of the body and the end of the request were sent.
        case completed
        /// The body passed the route's limit (the upstream connection is closed).
        case tooLarge
        /// Reading the client's body failed: the client went away or sent a malformed body (the upstream connection
        /// is closed).
        case clientBodyFailed
        /// The client stopped sending its body (``RequestBodyTimeout``; the upstream connection is closed).
        case clientBodyTimedOut
        /// Writing to the upstream failed (it closed early, perhaps after answering).
        case upstreamClosed
        /// Stopped before it could finish (the upstream answered first).
        case stopped
    }

    private let outcome = Mutex<Outcome>(.running)
    private let task = Mutex<Task<Void, Never>?>(nil)

    private init() {}

    /// - Parameter clock: the exchange's deadline, held by the caller: touched before each write to the upstream and
    ///   held again after it, and left running from the request's end on.
    static func start(_ body: RequestBody, to connection: UpstreamConnection, limit: Int, clock: InactivityDeadline) -> UpstreamUpload {
        let upload = UpstreamUpload()
        let task = Task(executorPreference: EventLoopTaskExecutor(connection.channel.eventLoop)) {
            let result = await Self.copy(body, to: connection, limit: limit, clock: clock)
            // A request that cannot be sent whole ends the upstream connection: the upstream sees it cut off (never
            // a shorter body that looks complete), and an exchange already streaming the answer ends.
            if result == .tooLarge || result == .clientBodyFailed || result == .clientBodyTimedOut { connection.close() }
            upload.outcome.withLock { if $0 == .running { $0 = result } }
        }
        upload.task.withLock { $0 = task }
        return upload
    }

    /// Cancels the copy if it is still running, waits for it, and says how it ended.
    func stop() async -> Outcome {
        guard let task = self.task.withLock({ $0 }) else { return self.outcome.withLock { $0 } }
        if self.outcome.withLock({ $0 == .running }) { task.cancel() }
        await task.value
        return self.outcome.withLock { outcome in
            if outcome == .running { outcome = .stopped }
            return outcome
        }
    }

    private static func copy(_ body: RequestBody, to connection: UpstreamConnection, limit: Int, clock: InactivityDeadline) async -> Outcome {
        var received = 0
        var iterator = body.makeAsyncIterator()
        while true {
            let buffer: ByteBuffer?
            do {
                buffer = try await iterator.next()
            } catch {
                // A stalled client is named even when the exchange stopped the copy meanwhile (its own timeout).
                if error is RequestBodyTimeout { return .clientBodyTimedOut }
                return Task.isCancelled ? .stopped : .clientBodyFailed
            }
            if Task.isCancelled { return .stopped }
            guard let buffer else { break }
            received += buffer.readableBytes
            guard received <= limit else { return .tooLarge }
            clock.touch()
            do {
                try await connection.outbound.write(.body(buffer))
            } catch {
                return .upstreamClosed
            }
            clock.hold()
        }
        // From the request's end on, the clock runs until the answer's head.
        clock.touch()
        do {
            try await connection.outbound.write(.end(nil))
        } catch {
            return .upstreamClosed
        }
        return .completed
    }
}
