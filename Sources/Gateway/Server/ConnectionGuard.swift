import HTTPTypes
import HTTPWire
import IDTokens
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Per-connection limits that sit between the HTTP codec and the request handling:
///
/// - **Slow clients**: a request head must be complete within `headerTimeout` of the connection opening, or of
///   the first byte of a later request on a kept-alive connection; otherwise the connection is closed (Envoy's
///   `request_headers_timeout`, HAProxy's `timeout http-request`). A client dribbling a header a byte at a time
///   cannot hold a connection. Waiting between requests is the idle timeout's business.
/// - **Stalled bodies**: while the gateway waits for more of a request body (it has asked the socket for more: a
///   handler consuming the body slowly, or an upstream taking it slowly, asks for nothing), the client must send some
///   within `bodyTimeout` (nginx's `client_body_timeout`, Envoy's stream idle timeout). Otherwise the handler reading
///   the body gets ``RequestBodyTimeout`` in its place and answers 408 `REQUEST_TIMEOUT`, and the connection closes
///   after that answer; a request already answered has its connection closed.
/// - **Unreadable requests**: the HTTP parser's errors become a JSON answer — 431 `HEADERS_TOO_LARGE` for header
///   lines or counts over the limits, 400 `MALFORMED_REQUEST` for anything else — and the connection is closed.
///   A request has one answer at most: when the error comes in the body of a request already answered, or while
///   its answer is being written, the connection is closed without another. An unreadable request behind pipelined
///   requests still being answered gets its answer after theirs (answers keep the requests' order). The error is
///   passed on, so a handler reading the body gets it instead of a body that seems to end early (HummingbirdCore
///   ends a request body quietly when the connection's inbound stream finishes), and nothing is written after the
///   answer. These last answers are written as bytes below SwiftNIO's encoder (see the answers to CONNECT).
/// - **`Connection: close` answers** (a 413 whose body was never read): the connection is closed once the answer
///   is written, instead of reading and discarding the rest of the body.
/// - **Answers to CONNECT** (the gateway tunnels nothing, so a 404 or 405): SwiftNIO's encoder writes every answer
///   to CONNECT without a body, though only a 2xx one must have none (RFC 9110 §9.3.6, RFC 9112 §6.3), which
///   would leave the JSON error out. This guard gathers such an answer and writes it itself, as bytes below the
///   encoder with its `Content-Length`, then closes the connection (the parser reads nothing after a CONNECT).
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headerTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    private let requestIDs: RequestIDGenerator
    /// When the request head under way must be complete (nil: none under way).
    private var headerDeadline: LoopDeadline?
    /// When more of the request body under way must have come (nil: not waiting for any).
    private var bodyDeadline: LoopDeadline?
    /// A request head was read, its end not yet.
    private var bodyUnderWay = false
    private var context: ChannelHandlerContext?
    private var headsRead = 0
    /// Requests read to their end.
    private var endsRead = 0
    private var answersWritten = 0
    /// A final answer's head is written, its end not yet.
    private var answerInProgress = false
    private var closeAfterAnswer = false
    /// Close once this many answers are written: the last is to a request that asked to close, and bytes came after it.
    private var closeWhenAnswered: Int?
    private var answeredParseError = false
    /// The request (numbered as `headsRead` counts) that is a CONNECT, and its answer while it is gathered.
    private var connectRequest: Int?
    private var connectAnswer: (head: HTTPResponse, body: ByteBuffer)?
    /// The error answer to an unreadable request that came while earlier ones were still being answered: it goes
    /// out after theirs (answers keep the order of the requests, RFC 9112 §9.3.2), then the connection closes.
    private var deferredErrorAnswer: (head: HTTPResponse, body: ByteBuffer)?
    /// The handler before the HTTP decoder, through which the last answers (`writeLastAnswer`) are written as bytes.
    private weak var rawSide: RequestStartWatcher?

    init(headerTimeout: TimeAmount, bodyTimeout: TimeAmount, requestIDs: RequestIDGenerator) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.requestIDs = requestIDs
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        self.headerDeadline = LoopDeadline(on: context.eventLoop) { [weak context] in context?.close(promise: nil) }
        // Unowned: `handlerRemoved` stops the deadline, which drops this closure.
        self.bodyDeadline = LoopDeadline(on: context.eventLoop) { [unowned self] in self.bodyTimedOut() }
        // Raw bytes are seen before the HTTP decoder: the first byte of a request starts its head's clock.
        let rawSide = RequestStartWatcher(guard: self)
        self.rawSide = rawSide
        try? context.pipeline.syncOperations.addHandler(rawSide, position: .first)
        if context.channel.isActive { self.armHeaderDeadline(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        self.armHeaderDeadline(context)
        context.fireChannelActive()
    }

    /// Bytes arrived: more of a body under way, or, if no request is under way, a new one starting.
    fileprivate func bytesArrived() {
        if self.bodyUnderWay { self.bodyDeadline?.set(nil) }
        guard let context, self.headsRead == self.answersWritten, self.headerDeadline?.deadline == nil else { return }
        self.armHeaderDeadline(context)
    }

    /// The gateway asks the socket for more: while a body is under way, its clock runs until bytes come (a body
    /// consumed slowly asks for nothing, so only the client's silence counts).
    func read(context: ChannelHandlerContext) {
        if self.bodyUnderWay, let deadline = self.bodyDeadline, deadline.deadline == nil {
            deadline.set(.now() + self.bodyTimeout)
        }
        context.read()
    }

    /// No more of the body under way came in time.
    private func bodyTimedOut() {
        guard self.bodyUnderWay, let context else { return }
        if self.answerInProgress || self.answersWritten >= self.headsRead {
            // Answered already (without the rest of its body): nothing more is read on this connection.
            context.close(promise: nil)
            return
        }
        // The handler reading the body answers 408 in its place; the rest of the body is not waited for.
        self.closeAfterAnswer = true
        context.fireErrorCaught(RequestBodyTimeout())
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.stopTimers()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.stopTimers()
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.headsRead += 1
            self.bodyUnderWay = true
            self.disarmHeaderDeadline()
            if head.method == .connect { self.connectRequest = self.headsRead }
        case .end:
            self.endsRead += 1
            self.bodyUnderWay = false
            self.bodyDeadline?.set(nil)
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // After the parser-error answer (or the decision to give none), the connection only closes.
        guard !self.answeredParseError else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        switch self.unwrapOutboundIn(data) {
        case .head(let head) where self.connectRequest == self.answersWritten + 1 && head.status.kind != .informational:
            // The answer to the CONNECT (never a 2xx: no route allows CONNECT), gathered, then written by `writeLastAnswer`.
            self.answerInProgress = true
            self.connectAnswer = (head, context.channel.allocator.buffer(capacity: 256))
            promise?.succeed()
        case .body(let body) where self.connectAnswer != nil:
            self.connectAnswer?.body.writeImmutableBuffer(body)
            promise?.succeed()
        case .head(var head):
            if head.status.kind != .informational { self.answerInProgress = true }
            if HopByHopHeaders.listsClose(head.headerFields[.connection]) {
                self.closeAfterAnswer = true
            } else if self.closeAfterAnswer, head.status.kind != .informational {
                // The connection closes after this answer (its request's body stalled): the answer says so.
                head.headerFields[.connection] = "close"
                context.write(self.wrapOutboundOut(.head(head)), promise: promise)
                return
            }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            self.answersWritten += 1
            self.answerInProgress = false
            if let (head, body) = self.connectAnswer {
                self.connectAnswer = nil
                self.writeLastAnswer(head, body: body, context: context, promise: promise)
                return
            }
            if self.closeAfterAnswer || self.closeWhenAnswered.map({ self.answersWritten >= $0 }) == true {
                context.writeAndFlush(data, promise: promise)
                context.close(promise: nil)
            } else if let (head, body) = self.deferredErrorAnswer, self.answersWritten >= self.headsRead {
                // The last answer before the unreadable request's: that one follows, then the connection closes.
                self.deferredErrorAnswer = nil
                self.answeredParseError = true
                context.write(data, promise: promise)
                self.writeLastAnswer(head, body: body, context: context, promise: nil)
            } else {
                context.write(data, promise: promise)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError || error is FaultyFraming else {
            context.fireErrorCaught(error)
            return
        }
        guard !self.answeredParseError else { return }
        self.disarmHeaderDeadline()
        self.bodyUnderWay = false
        self.bodyDeadline?.set(nil)
        if let parserError = error as? HTTPParserError, parserError == .closedConnection {
            // Bytes after a request that asked to close (`Connection: close`, or HTTP/1.0 without keep-alive): no
            // further request is read on the connection (RFC 9112 §9.6), and the bytes are no error of that request.
            // Its answer (and any before it) goes out, then the connection closes.
            self.closeWhenAnswered = self.headsRead
            if self.answersWritten >= self.headsRead, !self.answerInProgress { context.close(promise: nil) }
            return
        }
        // The body of the request being read is what failed (the rest of the connection cannot be read either):
        // that request's handler must see the error, not a body that merely ends.
        defer { context.fireErrorCaught(error) }
        // A new request that cannot be read, behind requests still being answered: its answer waits for theirs.
        let waitsForEarlierAnswers = self.endsRead == self.headsRead && self.answersWritten < self.headsRead
        let bodyOfAnsweredRequest = self.endsRead < self.headsRead && self.answersWritten >= self.headsRead
        guard waitsForEarlierAnswers || (!self.answerInProgress && !bodyOfAnsweredRequest) else {
            self.answeredParseError = true
            context.close(promise: nil)
            return
        }
        let error: GatewayError = (error as? HTTPParserError) == .headerOverflow ? .headersTooLarge() : .malformedRequest()
        let requestID = self.requestIDs.next()
        let json = ErrorResponse.json(error, requestID: requestID, now: WallClock.now())
        var headers = ErrorResponse.fields(error)
        headers[GatewayResponder.requestIDHeader] = requestID
        let answer = (head: HTTPResponse(status: error.status, headerFields: headers), body: context.channel.allocator.buffer(string: json))
        guard !waitsForEarlierAnswers else {
            self.deferredErrorAnswer = answer
            return
        }
        self.answeredParseError = true
        self.writeLastAnswer(answer.head, body: answer.body, context: context, promise: nil)
    }

    /// Writes the connection's last answer as bytes below SwiftNIO's encoder, framed by its `Content-Length`, then
    /// closes the connection: the answer to a CONNECT (the encoder would drop its body), or to a request that could
    /// not be read (whose method the encoder may have taken as CONNECT too).
    private func writeLastAnswer(_ head: HTTPResponse, body: ByteBuffer, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        guard let rawSide = self.rawSide else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            context.close(promise: nil)
            return
        }
        var bytes = context.channel.allocator.buffer(capacity: 512 + body.readableBytes)
        HeadBytes.writeStatusLine(head.status, into: &bytes)
        // The framing and the connection's fate are this writer's.
        for field in head.headerFields where field.name != .contentLength && field.name != .transferEncoding && field.name != .connection {
            HeadBytes.writeField(field, into: &bytes)
        }
        bytes.writeStaticString("Connection: close\r\nContent-Length: ")
        bytes.writeString(String(body.readableBytes))
        bytes.writeStaticString("\r\n\r\n")
        bytes.writeImmutableBuffer(body)
        let channel = context.channel
        let written = context.eventLoop.makePromise(of: Void.self)
        rawSide.writeAndFlush(bytes, promise: written)
        written.futureResult.whenComplete { result in
            promise?.completeWith(result)
            channel.close(promise: nil)
        }
    }

    private func armHeaderDeadline(_ context: ChannelHandlerContext) {
        self.headerDeadline?.set(.now() + self.headerTimeout)
    }

    private func disarmHeaderDeadline() {
        self.headerDeadline?.set(nil)
    }

    private func stopTimers() {
        self.headerDeadline?.stop()
        self.bodyDeadline?.stop()
    }
}

/// No more of a request body came within the server's `body_timeout_seconds` while the gateway waited for it: what
/// the handler reading the body gets in its place (answered 408 `REQUEST_TIMEOUT`).
struct RequestBodyTimeout: Error {}

/// Tells the guard when raw bytes arrive (it sits first in the pipeline, before the HTTP decoder), and writes the
/// answers the guard writes as bytes.
private final class RequestStartWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let connectionGuard: ConnectionGuard
    private var context: ChannelHandlerContext?

    init(guard connectionGuard: ConnectionGuard) {
        self.connectionGuard = connectionGuard
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Writes bytes from here, below the HTTP encoder, toward the socket.
    func writeAndFlush(_ bytes: ByteBuffer, promise: EventLoopPromise<Void>) {
        guard let context else { return promise.fail(ChannelError.ioOnClosedChannel) }
        context.writeAndFlush(NIOAny(IOData.byteBuffer(bytes)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.connectionGuard.bytesArrived()
        context.fireChannelRead(data)
    }
}
