import NIOCore
import Synchronization

/// A bounded hand-off of request body buffers from the task reading the client (the producer) to the upstream
/// request (the consumer, async-http-client's body writer). At most `capacity` buffers wait in between, so
/// memory stays flat whatever the body's size: a full relay suspends the producer, which stops reading the
/// client, whose TCP window then closes.
///
/// Either side can end it: the producer with ``finish(throwing:)``, the consumer (or the proxy, when the
/// exchange is over) with ``close()``, which wakes a waiting producer with ``Closed``. Waits are cancellable.
final class RequestBodyRelay: Sendable {
    /// Thrown to a side that waits on, or sends into, a closed relay.
    struct Closed: Error {}

    private struct State {
        var buffers: CircularBuffer<ByteBuffer>
        /// nil while the producer may send; `.success` once the body ended, `.failure` once it failed.
        var end: Result<Void, any Error>?
        var closed = false
        var waitingConsumer: CheckedContinuation<ByteBuffer?, any Error>?
        var waitingProducer: CheckedContinuation<Void, any Error>?
    }

    let capacity: Int
    private let state: Mutex<State>

    init(capacity: Int = 4) {
        precondition(capacity > 0)
        self.capacity = capacity
        self.state = Mutex(State(buffers: CircularBuffer(initialCapacity: capacity)))
    }

    /// Buffers waiting between the two sides (never more than `capacity`).
    var bufferedCount: Int { self.state.withLock { $0.buffers.count } }

    // MARK: Producer

    /// Passes `buffer` on; returns at once while there is room, otherwise once the consumer has taken some.
    /// - Throws: ``Closed`` once the relay is closed; `CancellationError` when the waiting task is cancelled.
    func send(_ buffer: ByteBuffer) async throws {
        enum Action {
            case done
            case resume(CheckedContinuation<ByteBuffer?, any Error>)
            case wait
            case fail
        }
        let action = self.state.withLock { state -> Action in
            if state.closed || state.end != nil { return .fail }
            if let consumer = state.waitingConsumer {
                state.waitingConsumer = nil
                return .resume(consumer)
            }
            state.buffers.append(buffer)
            return state.buffers.count < self.capacity ? .done : .wait
        }
        switch action {
        case .done: return
        case .fail: throw Closed()
        case .resume(let consumer): consumer.resume(returning: buffer)
        case .wait:
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let resumeWith = self.state.withLock { state -> Result<Void, any Error>? in
                        if state.closed { return .failure(Closed()) }
                        if state.buffers.count < self.capacity { return .success(()) }
                        if Task.isCancelled { return .failure(CancellationError()) }
                        state.waitingProducer = continuation
                        return nil
                    }
                    if let resumeWith { continuation.resume(with: resumeWith) }
                }
            } onCancel: {
                let producer = self.state.withLock { state in
                    defer { state.waitingProducer = nil }
                    return state.waitingProducer
                }
                producer?.resume(throwing: CancellationError())
            }
        }
    }

    /// Ends the body: the consumer gets the buffers still waiting, then the end (nil) or `error`.
    func finish(throwing error: (any Error)? = nil) {
        let consumer = self.state.withLock { state -> CheckedContinuation<ByteBuffer?, any Error>? in
            guard state.end == nil, !state.closed else { return nil }
            state.end = error.map { .failure($0) } ?? .success(())
            defer { state.waitingConsumer = nil }
            return state.waitingConsumer
        }
        if let error { consumer?.resume(throwing: error) } else { consumer?.resume(returning: nil) }
    }

    // MARK: Consumer

    /// The next buffer, nil at the end of the body.
    /// - Throws: the producer's error, ``Closed`` once closed, `CancellationError` when the waiting task is cancelled.
    func next() async throws -> ByteBuffer? {
        enum Action {
            case buffer(ByteBuffer, wake: CheckedContinuation<Void, any Error>?)
            case end(Result<Void, any Error>)
            case wait
        }
        let action = self.state.withLock { state -> Action in
            if state.closed { return .end(.failure(Closed())) }
            if let buffer = state.buffers.popFirst() {
                defer { state.waitingProducer = nil }
                return .buffer(buffer, wake: state.waitingProducer)
            }
            if let end = state.end { return .end(end) }
            return .wait
        }
        switch action {
        case .buffer(let buffer, let producer):
            producer?.resume()
            return buffer
        case .end(let end):
            try end.get()
            return nil
        case .wait:
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ByteBuffer?, any Error>) in
                    let resumeWith = self.state.withLock { state -> Result<ByteBuffer?, any Error>? in
                        if state.closed { return .failure(Closed()) }
                        if let buffer = state.buffers.popFirst() { return .success(buffer) }
                        if let end = state.end { return end.map { _ -> ByteBuffer? in nil } }
                        if Task.isCancelled { return .failure(CancellationError()) }
                        state.waitingConsumer = continuation
                        return nil
                    }
                    if let resumeWith { continuation.resume(with: resumeWith) }
                }
            } onCancel: {
                let consumer = self.state.withLock { state in
                    defer { state.waitingConsumer = nil }
                    return state.waitingConsumer
                }
                consumer?.resume(throwing: CancellationError())
            }
        }
    }

    /// Ends the relay from the consumer's side: waiting buffers are dropped, a waiting producer or consumer
    /// gets ``Closed``, and later calls fail at once.
    func close() {
        let (producer, consumer) = self.state.withLock { state in
            state.closed = true
            state.buffers.removeAll()
            defer {
                state.waitingProducer = nil
                state.waitingConsumer = nil
            }
            return (state.waitingProducer, state.waitingConsumer)
        }
        producer?.resume(throwing: Closed())
        consumer?.resume(throwing: Closed())
    }

    /// The consumer side as an `AsyncSequence`, for `HTTPClientRequest.Body.stream`.
    var buffers: Buffers { Buffers(relay: self) }

    struct Buffers: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let relay: RequestBodyRelay

        struct AsyncIterator: AsyncIteratorProtocol {
            let relay: RequestBodyRelay
            mutating func next() async throws -> ByteBuffer? { try await self.relay.next() }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(relay: self.relay) }
    }
}
