import HTTPTypes
import HTTPWire
import NIOCore
import Prometheus
import UpstreamClient

/// One request forwarded to an upstream: a pooled (or new) upstream connection on the client's event loop, the head
/// sent, the answer streamed back as it comes (flushed at the end of each read batch, so a small answer is one
/// write), and the connection pooled again once the answer has ended. The route's timeout bounds the wait for the
/// answer's head (504) and then each pause in the answer; a failure before the head is a 502, after one retry on a
/// new connection when a pooled one turns out closed and the request is idempotent
/// (``UpstreamRoute/retriesOnStaleConnection(_:)``); a failure or a stall in the body closes the client's connection
/// (the answer is truncated); the client going away closes the upstream connection. The answer goes to a
/// ``AnswerSink``.
final class ProxyExchange: UpstreamReceiver, ConnectionExchange {
    private enum State {
        /// Rules that need I/O are being applied (``GatewayResponder/decide(_:)``).
        case deciding
        case connecting
        case waitingForHead
        case streaming(status: Int)
        case done
    }

    private let sink: any AnswerSink
    private let eventLoop: any EventLoop
    private let responder: GatewayResponder
    private let request: EdgeRequest
    private let route: UpstreamRoute
    /// Set once every rule has passed.
    private var head: UpstreamRequestHead?
    private let timing: UpstreamTiming?
    private var state = State.connecting
    private var connection: UpstreamConnection?
    private var reused = false
    private var retried = false
    private var sent = ContinuousClock.now
    /// Reading from the upstream stopped while the client catches up.
    private var paused = false
    /// The request's body streaming to the upstream, and the bytes sent of it.
    private var upload = Upload.none
    private var uploaded = 0

    private enum Upload {
        /// No body streams after the head.
        case none
        /// The body is sent as it comes.
        case sending(chunked: Bool)
        /// Its end has been sent.
        case sent
        /// It broke off: the upstream connection cannot be used again.
        case failed
    }

    init(
        sink: any AnswerSink, eventLoop: any EventLoop, responder: GatewayResponder, request: EdgeRequest, route: UpstreamRoute
    ) {
        self.sink = sink
        self.eventLoop = eventLoop
        self.responder = responder
        self.request = request
        self.route = route
        self.timing = responder.accessLog == nil ? nil : UpstreamTiming()
    }

    /// Sends `head` upstream.
    func begin(_ head: UpstreamRequestHead) {
        self.head = head
        self.begin()
    }

    /// Applies the rules that wait on I/O — a rate limit asked of its store from this event loop, or, with a
    /// certificate refetch, all of them in a task on the loop — then refuses the request or sends it.
    func decide(_ pending: PendingDecision) {
        self.state = .deciding
        let started = self.responder.decideOnLoop(pending, eventLoop: self.eventLoop) { decision, pending in
            if let decision { self.decided(decision, pending) } else { self.decideInTask(pending) }
        }
        if !started { self.decideInTask(pending) }
    }

    private func decideInTask(_ pending: PendingDecision) {
        let (responder, eventLoop) = (self.responder, self.eventLoop)
        let exchange = NIOLoopBound(self, eventLoop: eventLoop)
        Task(executorPreference: EventLoopTaskExecutor(eventLoop)) {
            let decision = await responder.decide(pending)
            // The task runs on the connection's loop; were it not, it hops there.
            if eventLoop.inEventLoop {
                exchange.value.decided(decision, pending)
            } else {
                eventLoop.execute { exchange.value.decided(decision, pending) }
            }
        }
    }

    private func decided(_ decision: Decision, _ pending: PendingDecision) {
        // The client may have gone meanwhile.
        guard case .deciding = self.state else { return }
        switch self.responder.resume(self.request, pending, decision, allocator: ByteBufferAllocator()) {
        case .forward(_, _, let head):
            self.begin(head)
        case .refuse(_, let error):
            self.responder.writeError(error, for: self.request, to: self.sink)
            self.finish(status: Int(error.status.code))
        case .handle, .decide:
            preconditionFailure("resume either forwards or refuses")
        }
    }

    private func begin() {
        if let connection = self.route.pool.lease(on: self.eventLoop) {
            self.send(on: connection, reused: true)
        } else {
            self.connect()
        }
    }

    private func connect() {
        self.state = .connecting
        let pool = self.route.pool
        let eventLoop = self.eventLoop
        pool.connect(on: eventLoop).assumeIsolated().whenComplete { result in
            switch result {
            case .success(let connection):
                guard case .connecting = self.state else {
                    // The client left meanwhile: keep the connection for the next request.
                    pool.release(connection, on: eventLoop)
                    return
                }
                self.send(on: connection, reused: false)
            case .failure(let error):
                guard case .connecting = self.state else { return }
                self.fail(.unreachable(UpstreamRoute.label(error)))
            }
        }
    }

    private func send(on connection: UpstreamConnection, reused: Bool) {
        self.connection = connection
        self.reused = reused
        self.state = .waitingForHead
        self.sent = .now
        guard let head = self.head else { preconditionFailure("sent before the rules passed") }
        connection.send(head, to: self, timeout: self.route.timeout)
        if head.streams, case .none = self.upload {
            self.upload = .sending(chunked: head.chunked)
            self.sink.requestBodyWanted(connection.isWritable)
        }
    }

    func requestBody(_ buffer: ByteBuffer) {
        guard case .sending(let chunked) = self.upload, let connection = self.connection else { return }
        self.uploaded += buffer.readableBytes
        guard self.uploaded <= self.route.maxBodyBytes else {
            self.requestBodyFailed(.tooLarge(limit: self.route.maxBodyBytes))
            return
        }
        connection.sendBody(buffer, chunked: chunked)
        if !connection.isWritable { self.sink.requestBodyWanted(false) }
    }

    func requestBodyEnd() {
        guard case .sending(let chunked) = self.upload, let connection = self.connection else { return }
        self.upload = .sent
        connection.sendBodyEnd(chunked: chunked)
    }

    /// The body cannot be sent whole: the upstream sees it cut off (never a shorter body that looks complete), and the
    /// client gets the error if no answer has started, or a closed connection.
    func requestBodyFailed(_ failure: RequestBodyFailure) {
        if case .failed = self.upload { return }
        self.upload = .failed
        self.sink.requestBodyWanted(false)
        // Answered before the upstream connection closes, so that its closing is not taken for the upstream's failure.
        let connection = self.connection
        self.connection = nil
        switch self.state {
        case .deciding, .connecting, .waitingForHead:
            let error = failure.error
            self.responder.writeError(error, for: self.request, to: self.sink)
            self.finish(status: Int(error.status.code))
        case .streaming(let status):
            self.sink.closeConnection()
            self.finish(status: status)
        case .done:
            break
        }
        connection?.close()
    }

    func upstreamWritable() {
        guard case .sending = self.upload else { return }
        self.sink.requestBodyWanted(true)
    }

    func upstreamHead(_ head: UpstreamHead) {
        guard case .waitingForHead = self.state else { return }
        let waited = self.sent.duration(to: .now)
        self.route.upstreamLatency.record(waited)
        self.timing?.record(waited)
        self.state = .streaming(status: Int(head.status.code))
        self.sink.writeUpstreamHead(head, for: self.request, responder: self.responder)
    }

    func upstreamBody(_ buffer: ByteBuffer) {
        guard case .streaming = self.state else { return }
        self.sink.writeBody(buffer)
    }

    func upstreamReadComplete() {
        guard case .streaming = self.state else { return }
        self.sink.flush()
        if !self.sink.isWritable, !self.paused {
            self.paused = true
            self.connection?.setReading(false)
        }
    }

    func upstreamEnd() {
        guard case .streaming(let status) = self.state else { return }
        self.sink.writeEnd(for: self.request)
        if let connection = self.connection {
            self.connection = nil
            if self.paused { connection.setReading(true) }
            // An upstream that answered before the request's body ended has not read it all.
            if case .sending = self.upload {
                self.upload = .failed
                self.sink.requestBodyWanted(false)
                connection.abandon()
            }
            self.route.pool.release(connection, on: self.eventLoop)
        }
        self.finish(status: status)
    }

    func upstreamFailed(timedOut: Bool, answered: Bool) {
        switch self.state {
        case .waitingForHead:
            self.connection = nil
            if timedOut {
                self.fail(.timeout)
            } else if answered {
                // The upstream read the request and answered with something unusable: never sent again.
                self.fail(.unreachable("invalid_answer"))
            } else if self.reused, !self.retried, let head = self.head, !head.hasBody, UpstreamRoute.retriesOnStaleConnection(head.method) {
                // A pooled connection the upstream had closed without a word: once more, on a new one.
                self.retried = true
                self.connect()
            } else {
                self.fail(.unreachable("closed_before_answer"))
            }
        case .streaming(let status):
            // Closed in the middle of the body: the client's connection closes too, the answer truncated.
            self.connection = nil
            self.sink.closeConnection()
            self.finish(status: status)
        case .deciding, .connecting, .done:
            break
        }
    }

    /// The client's connection closed.
    func clientGone() {
        switch self.state {
        case .done:
            return
        case .streaming(let status):
            self.connection?.close()
            self.finish(status: status)
        case .deciding, .connecting, .waitingForHead:
            self.connection?.close()
            self.request.record.errorReason = "cancelled"
            self.finish(status: 503)
        }
    }

    /// A proxied exchange goes on: the client may still read its answer (as HAProxy without `abortonclose`).
    func clientHalfClosed() {}

    func clientWritable() {
        guard self.paused else { return }
        self.paused = false
        self.connection?.setReading(true)
    }

    private func fail(_ failure: UpstreamRoute.Failure) {
        let error = self.route.answer(failure, requestID: self.request.requestID)
        self.responder.writeError(error, for: self.request, to: self.sink)
        self.finish(status: Int(error.status.code))
    }

    /// Records the exchange once (closing the client's connection can end it from two sides at once).
    private func finish(status: Int) {
        if case .done = self.state { return }
        self.state = .done
        self.connection = nil
        self.responder.finished(self.request, status: status, upstream: self.timing)
        self.sink.exchangeFinished(self)
    }
}
