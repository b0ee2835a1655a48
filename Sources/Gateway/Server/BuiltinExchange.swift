import HTTPTypes
import HummingbirdCore
import NIOCore

/// What a raw-path connection runs for its request under way, one at a time: a forwarded exchange
/// (``ProxyExchange``) or a built-in handler (``BuiltinExchange``). Called on the connection's event loop.
protocol ConnectionExchange: AnyObject {
    /// The client's socket can take more bytes again.
    func clientWritable()
    /// The client closed its sending half; it may still read the answer.
    func clientHalfClosed()
    /// The connection is gone: the answer has nowhere to go.
    func clientGone()
    /// Part of the request's body, when it streams (after ``AnswerSink/requestBodyWanted(_:)``).
    func requestBody(_ buffer: ByteBuffer)
    /// The request's body has ended.
    func requestBodyEnd()
    /// The request's body cannot be read to its end; the connection closes after the answer.
    func requestBodyFailed(_ failure: RequestBodyFailure)
}

/// Why a streamed request body stopped before its end.
enum RequestBodyFailure: Error {
    /// No more of it came within the body timeout (408).
    case timeout
    /// Its chunked framing is broken (400).
    case malformed(reason: String)
    /// The client closed its side before the end (400).
    case cutOff
    /// It passed the route's limit (413).
    case tooLarge(limit: Int)
}

/// One request to a built-in route (the functions, media, `/v1/me`, health, OpenAPI, metrics), or one answered by the
/// responder without an upstream: its answer (``GatewayResponder/response(to:route:requestID:channel:peer:upstream:watcher:record:)``,
/// rules and errors included), made in a task on the connection's event loop and written to the connection's
/// ``AnswerSink``, with the socket's backpressure. The client leaving cancels the work (and a half-close
/// cancels what watches for it, as an AI function does).
final class BuiltinExchange: ConnectionExchange {
    private let sink: any AnswerSink
    private let eventLoop: any EventLoop
    private let responder: GatewayResponder
    private let request: EdgeRequest
    /// Tells the handler when the client leaves (an AI function stops its work then).
    private let watcher = ClientCloseWatcher()
    private var task: Task<Void, Never>?
    /// A body write waiting for the socket to drain.
    private var writable: EventLoopPromise<Void>?
    /// The answer's status, once its head is written.
    private var status: Int?
    private var gone = false
    private var finished = false
    /// Where a streamed request body's parts go, read by the handler as ``RequestBody``.
    private var body: StreamedBody.Source?

    init(sink: any AnswerSink, eventLoop: any EventLoop, responder: GatewayResponder, request: EdgeRequest) {
        self.sink = sink
        self.eventLoop = eventLoop
        self.responder = responder
        self.request = request
    }

    /// Makes and writes the answer to `head` for `route`: with `body`, read whole with the head, or with a body that
    /// `streamed` after it (``requestBody(_:)``), asked of the connection as the handler reads it.
    func start(_ head: HTTPRequest, body: ByteBuffer?, streamed: Bool, route: Route?, channel: any Channel, peer: String?) {
        let (responder, eventLoop, watcher) = (self.responder, self.eventLoop, self.watcher)
        let (requestID, record) = (self.request.requestID, self.request.record)
        let exchange = NIOLoopBound(self, eventLoop: eventLoop)
        let requestBody: RequestBody
        if streamed {
            let stream = StreamedBody.makeSequence(
                backPressureStrategy: .init(lowWatermark: 2, highWatermark: 8), finishOnDeinit: false, delegate: BodyDemand(exchange: exchange)
            )
            self.body = stream.source
            requestBody = RequestBody(asyncSequence: FirstRead(base: stream.sequence) { eventLoop.execute { exchange.value.bodyDemanded() } })
        } else {
            requestBody = RequestBody(buffer: body ?? ByteBuffer())
        }
        self.task = Task(executorPreference: EventLoopTaskExecutor(eventLoop)) {
            var record = record
            var response = await responder.response(
                to: Request(head: head, body: requestBody), route: route, requestID: requestID,
                channel: channel, peer: peer, upstream: nil, watcher: watcher, record: &record
            )
            // The length the body knows, written out (a HEAD answer says what the GET's would be).
            if let length = response.body.contentLength, !response.headers.contains(.contentLength) {
                response.headers[.contentLength] = String(length)
            }
            if responder.accessLog != nil {
                record.noteAnswer(bodyLength: response.body.contentLength, headers: response.headers, method: head.method)
            }
            let (answer, answered) = (response, record)
            let writer = SinkBodyWriter(exchange: exchange, eventLoop: eventLoop)
            do {
                try await eventLoop.flatSubmit { exchange.value.writeHead(answer, record: answered) }.get()
                try await answer.body.write(writer)
                eventLoop.execute { exchange.value.end() }
            } catch {
                eventLoop.execute { exchange.value.fail() }
            }
        }
    }

    func requestBody(_ buffer: ByteBuffer) {
        guard let body = self.body else { return }
        if body.yield(buffer) != .produceMore { self.sink.requestBodyWanted(false) }
    }

    func requestBodyEnd() {
        self.body?.finish()
        self.body = nil
    }

    func requestBodyFailed(_ failure: RequestBodyFailure) {
        // The handler reading it answers as ``RequestBodyReader`` maps the failure.
        self.body?.finish(failure)
        self.body = nil
    }

    /// The handler reads the body (its first read, or it has taken what was buffered).
    fileprivate func bodyDemanded() {
        guard self.body != nil, !self.finished else { return }
        self.sink.requestBodyWanted(true)
    }

    /// The handler is done with the body without reading it to the end.
    fileprivate func bodyAbandoned() {
        guard self.body != nil else { return }
        self.body = nil
        if !self.finished { self.sink.requestBodyWanted(false) }
    }

    func clientWritable() {
        self.writable?.succeed()
        self.writable = nil
    }

    func clientHalfClosed() {
        self.watcher.clientClosed(whole: false)
    }

    func clientGone() {
        self.gone = true
        self.watcher.clientClosed(whole: true)
        self.task?.cancel()
        self.body?.finish(RequestBodyFailure.cutOff)
        self.body = nil
        self.writable?.fail(ChannelError.ioOnClosedChannel)
        self.writable = nil
        if self.status == nil { self.request.record.errorReason = "cancelled" }
        self.finish(status: self.status ?? 503)
    }

    // MARK: On the event loop, from the task

    private func writeHead(_ response: Response, record: RequestRecord) -> EventLoopFuture<Void> {
        self.request.record = record
        guard !self.gone else { return self.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
        // An answer that ends the connection (the client asked, or an error that leaves a body unread) closes it.
        if HopByHopHeaders.listsClose(response.headers[.connection]) { self.request.closesConnection = true }
        self.status = Int(response.status.code)
        var fields = response.headers
        self.responder.finishAnswerFields(&fields, self.request)
        self.sink.writeHead(HTTPResponse(status: response.status, headerFields: fields), for: self.request)
        return self.eventLoop.makeSucceededVoidFuture()
    }

    fileprivate func writeBody(_ buffer: ByteBuffer, first: Bool) -> EventLoopFuture<Void> {
        guard !self.gone else { return self.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
        self.sink.writeBody(buffer)
        // A small answer leaves with its head in one write, at its end; a streamed one as it comes.
        if !first || buffer.readableBytes > ConnectionHandler.maxBodyWithHead { self.sink.flush() }
        guard !self.sink.isWritable else { return self.eventLoop.makeSucceededVoidFuture() }
        let promise = self.eventLoop.makePromise(of: Void.self)
        self.writable = promise
        return promise.futureResult
    }

    private func end() {
        guard !self.finished, let status = self.status else { return }
        self.sink.writeEnd(for: self.request)
        self.finish(status: status)
    }

    /// The body failed part way: the answer cannot be completed, so the connection closes.
    private func fail() {
        guard !self.finished else { return }
        self.request.record.errorReason = "body_failed"
        self.sink.closeConnection()
        self.finish(status: self.status ?? 503)
    }

    /// Counts the request once, and lets the connection go on.
    private func finish(status: Int) {
        guard !self.finished else { return }
        self.finished = true
        self.responder.finished(self.request, status: status, upstream: nil)
        self.sink.exchangeFinished(self)
    }
}

/// A streamed request body as the handler's task reads it, fed on the connection's event loop.
private typealias StreamedBody = NIOThrowingAsyncSequenceProducer<
    ByteBuffer, any Error, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, BodyDemand
>

/// Asks the connection for more of the body when the handler has taken what was buffered.
private struct BodyDemand: NIOAsyncSequenceProducerDelegate {
    let exchange: NIOLoopBound<BuiltinExchange>

    func produceMore() {
        let exchange = self.exchange
        exchange.eventLoop.execute { exchange.value.bodyDemanded() }
    }

    func didTerminate() {
        let exchange = self.exchange
        exchange.eventLoop.execute { exchange.value.bodyAbandoned() }
    }
}

/// A sequence that calls `first` when it is first read: the body is asked of the client only when a handler reads it
/// (after its rules), so `Expect: 100-continue` is answered then and not before.
private struct FirstRead<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    let base: Base
    let first: @Sendable () -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        var first: (@Sendable () -> Void)?

        mutating func next() async throws -> ByteBuffer? {
            if let first = self.first {
                self.first = nil
                first()
            }
            return try await self.base.next()
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: self.base.makeAsyncIterator(), first: self.first)
    }
}

/// A built-in answer's body, written to the connection from its exchange's task.
private struct SinkBodyWriter: ResponseBodyWriter {
    let exchange: NIOLoopBound<BuiltinExchange>
    let eventLoop: any EventLoop
    var first = true

    mutating func write(_ buffer: ByteBuffer) async throws {
        let (exchange, first) = (self.exchange, self.first)
        self.first = false
        try await self.eventLoop.flatSubmit { exchange.value.writeBody(buffer, first: first) }.get()
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
