import Generations
import HTTPTypes
import HTTPWire
import NIOCore
import Prometheus
import UpstreamClient

/// One upstream exchange held whole, request and answer: a write under an Idempotency-Key on an upstream route,
/// whose answer is kept for its retries. It runs on the route's pooled connections like a proxied exchange, but
/// reads the answer into memory (at most ``maximumAnswerBytes``) instead of streaming it to a client.
final class UpstreamCall: UpstreamReceiver {
    /// The largest answer kept: a larger one is a 502, never a truncated replay.
    static let maximumAnswerBytes = 8 << 20

    private let route: UpstreamRoute
    private let eventLoop: any EventLoop
    private let promise: EventLoopPromise<Result<StoredAnswer, UpstreamRoute.Failure>>
    private var head: HTTPResponse?
    private var body = ByteBuffer()
    private var connection: UpstreamConnection?
    private var sent = ContinuousClock.now
    private var done = false

    private init(route: UpstreamRoute, eventLoop: any EventLoop) {
        self.route = route
        self.eventLoop = eventLoop
        self.promise = eventLoop.makePromise()
    }

    /// Sends `head` (with its body) to `route` from `eventLoop`; the answer, or why there is none.
    static func send(_ head: UpstreamRequestHead, route: UpstreamRoute, on eventLoop: any EventLoop) async -> Result<StoredAnswer, UpstreamRoute.Failure> {
        let result = eventLoop.flatSubmit {
            let call = UpstreamCall(route: route, eventLoop: eventLoop)
            call.start(head)
            return call.promise.futureResult
        }
        return (try? await result.get()) ?? .failure(.unreachable("shutdown"))
    }

    private func start(_ head: UpstreamRequestHead) {
        let finish: (UpstreamConnection) -> Void = { connection in
            self.connection = connection
            self.sent = .now
            connection.send(head, to: self, timeout: self.route.timeout)
        }
        if let connection = self.route.pool.lease(on: self.eventLoop) {
            finish(connection)
            return
        }
        self.route.pool.connect(on: self.eventLoop).assumeIsolated().whenComplete { result in
            switch result {
            case .success(let connection): finish(connection)
            case .failure(let error): self.complete(.failure(.unreachable(UpstreamRoute.label(error))))
            }
        }
    }

    private func complete(_ result: Result<StoredAnswer, UpstreamRoute.Failure>) {
        guard !self.done else { return }
        self.done = true
        self.promise.succeed(result)
    }

    func upstreamHead(_ head: UpstreamHead) {
        self.route.upstreamLatency.record(self.sent.duration(to: .now))
        self.head = head.response
    }

    func upstreamBody(_ buffer: ByteBuffer) {
        guard !self.done else { return }
        var buffer = buffer
        guard self.body.readableBytes + buffer.readableBytes <= Self.maximumAnswerBytes else {
            self.connection?.close()
            self.connection = nil
            self.complete(.failure(.unreachable("answer_too_large")))
            return
        }
        self.body.writeBuffer(&buffer)
    }

    func upstreamReadComplete() {}

    func upstreamEnd() {
        guard let head = self.head else { return }
        if let connection = self.connection {
            self.connection = nil
            self.route.pool.release(connection, on: self.eventLoop)
        }
        let fields = HopByHopHeaders.responseFields(head.headerFields).filter { $0.name != .contentLength && $0.name != .date }
        self.complete(.success(StoredAnswer(status: head.status, fields: HTTPFields(fields), body: Array(self.body.readableBytesView))))
    }

    func upstreamFailed(timedOut: Bool, answered: Bool) {
        self.connection = nil
        self.complete(.failure(timedOut ? .timeout : .unreachable(answered ? "invalid_answer" : "closed_before_answer")))
    }

    func upstreamWritable() {}
}
