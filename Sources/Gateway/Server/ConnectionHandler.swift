import HTTPTypes
import HTTPWire
import NIOCore
import UpstreamClient

/// The one handler on a client connection: it reads requests straight from the connection's bytes and writes
/// answers straight onto it, with no HTTP codec, no type conversion and no other handler in between.
///
/// ``ConnectionStateMachine`` keeps the connection's rules (timeouts, one request at a time, bodies, keep-alive,
/// half-close, quiesce); this handler feeds it the channel's events and does what it says. Each request head goes to
/// ``GatewayResponder/start(_:authorization:appCheck:body:streamed:closesConnection:channel:peer:)``, which refuses it at
/// once or starts its exchange: a ``ProxyExchange`` applies the rules (``RequestRules``) and forwards it, a
/// ``BuiltinExchange`` runs its route's handler. The exchange writes the answer through this handler
/// (``AnswerSink``), asks for the request's body as it can take it, and says when it is finished.
final class ConnectionHandler: ChannelDuplexHandler, AnswerSink {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// The responder of the current configuration, taken again when a reload has published another.
    private var responder: GatewayResponder
    private let live: LiveResponder
    private var generation: Int
    private var machine: ConnectionStateMachine
    private var context: ChannelHandlerContext?
    /// The peer's address as text, for every request on the connection (formatting it is not free).
    private lazy var peer: String? = self.context?.channel.remoteAddress?.ipAddress
    private var exchange: (any ConnectionExchange)?
    /// ``advance()`` is running: an event raised from within it (an exchange answering at once) is taken up by it.
    private var advancing = false
    /// `autoRead` is off and this handler asks for each read: SwiftNIO's automatic read starts at the pipeline's
    /// tail, while a read asked for here goes straight to the socket.
    private var readsItself = false
    /// The answer's head, held back until its body's first bytes, its end or a flush, so that a small answer
    /// (the common one) leaves in one buffer, one write.
    private var heldHead: ByteBuffer?
    /// How the answer under way is framed.
    private var answerChunked = false
    private var answerWithoutBody = false
    /// The machine's deadline, on the event loop's clock.
    private var timer: LoopDeadline?

    init(responder: LiveResponder, limits: ConnectionStateMachine.Limits) {
        let published = responder.load()
        self.live = responder
        self.responder = published.responder
        self.generation = published.generation
        self.machine = ConnectionStateMachine(limits: limits)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // `unowned`: `handlerRemoved` stops the deadline (see LoopDeadline).
        self.timer = LoopDeadline(on: context.eventLoop) { [unowned self] in
            self.run(self.machine.timerFired(now: self.now))
            self.advance()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.timer?.stop()
        self.exchange?.clientGone()
        self.exchange = nil
        self.context = nil
    }

    // MARK: Inbound

    func channelActive(context: ChannelHandlerContext) {
        self.machine.channelActive(now: self.now)
        self.timer?.set(self.machine.deadline)
        // Called before SwiftNIO's first automatic read, which this stops.
        if (try? context.channel.syncOptions?.setOption(.autoRead, value: false)) != nil {
            self.readsItself = true
            self.read(context: context)
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.machine.bytesRead(self.unwrapInboundIn(data), now: self.now)
        self.advance()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // What `autoRead` does next, from here. Reading goes on while closing too: the socket is drained.
        if self.readsItself { self.read(context: context) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let event as ChannelEvent where event == .inputClosed:
            if self.machine.clientHalfClosed() {
                context.close(promise: nil)
                return
            }
            self.exchange?.clientHalfClosed()
            self.advance()
        case is ChannelShouldQuiesceEvent:
            // Close now if idle, else after the answer under way.
            if self.machine.quiesce() { context.close(promise: nil) }
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { self.exchange?.clientWritable() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.timer?.stop()
        self.machine.closeNow()
        self.exchange?.clientGone()
        self.exchange = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A socket error (a reset): the connection is gone; `channelInactive` follows.
        context.close(promise: nil)
    }

    // MARK: Outbound

    /// Reading goes on during a request unless a client pipelining ahead has sent too much.
    func read(context: ChannelHandlerContext) {
        if self.machine.readRequested() { context.read() }
    }

    // MARK: Driving the state machine

    /// Does what the machine says until it waits: starts requests, passes body parts on, closes.
    private func advance() {
        guard !self.advancing, let context else { return }
        self.advancing = true
        defer { self.advancing = false }
        while true {
            let next = self.machine.next(now: self.now)
            if case .wait = next { break }
            self.run(next)
        }
        self.timer?.set(self.machine.deadline)
        if self.machine.releaseHeldRead() { context.read() }
    }

    private func run(_ next: ConnectionStateMachine.Next) {
        guard let context else { return }
        switch next {
        case .wait:
            break
        case .start(let head, let body, let streamed):
            self.start(head, body: body, streamed: streamed, context: context)
        case .refuse(let error):
            // A head that cannot be read: answered as a request of its own, and the connection closes after it.
            let request = self.responder.unreadableRequest(peer: self.peer)
            self.responder.metrics.requestStarted()
            self.responder.writeError(error, for: request, to: self)
            self.responder.finished(request, status: Int(error.status.code), upstream: nil)
        case .body(let buffer):
            self.exchange?.requestBody(buffer)
        case .bodyEnd:
            self.exchange?.requestBodyEnd()
        case .bodyFailed(let failure):
            self.exchange?.requestBodyFailed(failure)
        case .close:
            context.close(promise: nil)
        }
    }

    private func start(_ parsed: RequestHead, body: ByteBuffer?, streamed: Bool, context: ChannelHandlerContext) {
        if self.live.generation != self.generation { (self.responder, self.generation) = self.live.load().pair }
        let start = self.responder.start(
            parsed.request, authorization: parsed.authorization, appCheck: parsed.appCheck, body: body,
            streamed: streamed ? parsed.body : .none, closesConnection: parsed.closesConnection, channel: context.channel, peer: self.peer
        )
        self.responder.metrics.requestStarted()
        if !parsed.readsChunked { start.request.readsChunked = false }
        switch start {
        case .refuse(let request, let error):
            self.responder.writeError(error, for: request, to: self)
            self.responder.finished(request, status: Int(error.status.code), upstream: nil)
            if self.machine.requestFinished(now: self.now) { context.close(promise: nil) }
        case .forward(let request, let route, let upstreamHead):
            let exchange = ProxyExchange(sink: self, eventLoop: context.eventLoop, responder: self.responder, request: request, route: route)
            self.exchange = exchange
            exchange.begin(upstreamHead)
        case .handle(let request, let route):
            var head = parsed.request
            if let authorization = parsed.authorization { head.headerFields.append(HTTPField(name: .authorization, value: authorization)) }
            if let appCheck = parsed.appCheck { head.headerFields.append(HTTPField(name: RequestRules.appCheckHeader, value: appCheck)) }
            let exchange = BuiltinExchange(sink: self, eventLoop: context.eventLoop, responder: self.responder, request: request)
            self.exchange = exchange
            exchange.start(head, body: body, streamed: streamed, route: route, channel: context.channel, peer: self.peer)
        case .decide(let request, let pending):
            let exchange = ProxyExchange(
                sink: self, eventLoop: context.eventLoop, responder: self.responder, request: request, route: pending.upstream
            )
            self.exchange = exchange
            exchange.decide(pending)
        }
    }

    // MARK: AnswerSink: the answer, framed as HTTP/1.1, goes straight to the socket.

    var isWritable: Bool { self.context?.channel.isWritable ?? false }

    func writeHead(_ response: HTTPResponse, for request: EdgeRequest) {
        guard let context else { return }
        let mayHaveBody = Self.mayHaveBody(response.status)
        var head = context.channel.allocator.buffer(capacity: 512)
        HeadBytes.writeStatusLine(response.status, into: &head)
        if self.closesForBody(request) { head.writeStaticString("Connection: close\r\n") }
        var hasLength = false
        for field in response.headerFields {
            // The framing fields are this writer's: as SwiftNIO's encoder, none on an answer that has no body, and
            // `Content-Length` if given, else chunked.
            if field.name == .transferEncoding { continue }
            if field.name == .contentLength {
                guard mayHaveBody else { continue }
                hasLength = true
            }
            HeadBytes.writeField(field, into: &head)
        }
        self.endHead(&head, mayHaveBody: mayHaveBody, hasLength: hasLength, for: request, context: context)
    }

    /// The upstream's end-to-end field lines are copied as they came, then the gateway's fields are written after them.
    func writeUpstreamHead(_ upstream: UpstreamHead, for request: EdgeRequest, responder: GatewayResponder) {
        guard let context else { return }
        let mayHaveBody = Self.mayHaveBody(upstream.status)
        var head = context.channel.allocator.buffer(capacity: 512 + upstream.lines.readableBytes)
        HeadBytes.writeStatusLine(upstream.status, into: &head)
        _ = self.closesForBody(request)
        let written = upstream.writeEndToEndFields(into: &head, omitting: GatewayResponder.requestIDHeader, withoutBody: !mayHaveBody)
        responder.appendAnswerFields(to: &head, for: request, answerHasDate: written.date)
        self.endHead(&head, mayHaveBody: mayHaveBody, hasLength: written.contentLength, for: request, context: context)
    }

    /// An answer that starts before its request's body has been read to the end closes the connection after it
    /// (the rest of the body is not read); true when it must now say so, which it has not yet.
    private func closesForBody(_ request: EdgeRequest) -> Bool {
        guard self.machine.answerStarts(), !request.closesConnection else { return false }
        request.closesConnection = true
        return true
    }

    private static func mayHaveBody(_ status: HTTPResponse.Status) -> Bool {
        status.code >= 200 && status.code != 204 && status.code != 304
    }

    /// Frames the answer (`Content-Length` if given, else chunked), ends the head and writes it.
    private func endHead(_ head: inout ByteBuffer, mayHaveBody: Bool, hasLength: Bool, for request: EdgeRequest, context: ChannelHandlerContext) {
        var chunked = mayHaveBody && !hasLength
        if chunked, !request.readsChunked, request.method != .head {
            // An HTTP/1.0 client: the body runs until the close.
            chunked = false
            if !request.closesConnection {
                request.closesConnection = true
                head.writeStaticString("Connection: close\r\n")
            }
        }
        if chunked { head.writeStaticString("transfer-encoding: chunked\r\n") }
        head.writeStaticString("\r\n")
        // An answer to HEAD carries the head a GET would have, and nothing after it.
        self.answerWithoutBody = request.method == .head || !mayHaveBody
        self.answerChunked = chunked && !self.answerWithoutBody
        self.heldHead = head
    }

    /// Writes the head held back, if any (before anything else is written or flushed).
    private func writeHeldHead(_ context: ChannelHandlerContext) {
        guard let head = self.heldHead else { return }
        self.heldHead = nil
        context.write(self.wrapOutboundOut(.byteBuffer(head)), promise: nil)
    }

    func writeBody(_ buffer: ByteBuffer) {
        guard let context, !self.answerWithoutBody, buffer.readableBytes > 0 else { return }
        if self.heldHead != nil, buffer.readableBytes <= Self.maxBodyWithHead {
            // A small body that came with the head: one buffer, one write.
            if self.answerChunked { Self.writeChunk(buffer, into: &self.heldHead!) } else { self.heldHead!.writeImmutableBuffer(buffer) }
            return
        }
        self.writeHeldHead(context)
        guard self.answerChunked else {
            context.write(self.wrapOutboundOut(.byteBuffer(buffer)), promise: nil)
            return
        }
        if buffer.readableBytes <= 4096 {
            var chunk = context.channel.allocator.buffer(capacity: buffer.readableBytes + 24)
            Self.writeChunk(buffer, into: &chunk)
            context.write(self.wrapOutboundOut(.byteBuffer(chunk)), promise: nil)
        } else {
            var size = context.channel.allocator.buffer(capacity: 24)
            size.writeString(String(buffer.readableBytes, radix: 16))
            size.writeStaticString("\r\n")
            context.write(self.wrapOutboundOut(.byteBuffer(size)), promise: nil)
            context.write(self.wrapOutboundOut(.byteBuffer(buffer)), promise: nil)
            context.write(self.wrapOutboundOut(.byteBuffer(ByteBuffer(staticString: "\r\n"))), promise: nil)
        }
    }

    /// The most body bytes copied after a head held back, so that a small answer leaves in one write.
    static let maxBodyWithHead = 2048

    /// One chunk of a chunked body: its size in hex, the bytes, CRLF.
    private static func writeChunk(_ buffer: ByteBuffer, into bytes: inout ByteBuffer) {
        bytes.writeString(String(buffer.readableBytes, radix: 16))
        bytes.writeStaticString("\r\n")
        bytes.writeImmutableBuffer(buffer)
        bytes.writeStaticString("\r\n")
    }

    func flush() {
        guard let context else { return }
        self.writeHeldHead(context)
        context.flush()
    }

    func writeEnd(for request: EdgeRequest) {
        guard let context else { return }
        if self.answerChunked {
            if self.heldHead != nil {
                self.heldHead!.writeStaticString("0\r\n\r\n")
            } else {
                context.write(self.wrapOutboundOut(.byteBuffer(ByteBuffer(staticString: "0\r\n\r\n"))), promise: nil)
            }
        }
        self.writeHeldHead(context)
        self.answerChunked = false
        self.answerWithoutBody = false
        let after = self.machine.answerEnds(closes: request.closesConnection, now: self.now)
        guard after != .keepOpen else {
            context.flush()
            return
        }
        // Nothing more is read or answered; the connection closes once the answer is out.
        self.timer?.set(self.machine.deadline)
        let channel = context.channel
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(self.wrapOutboundOut(.byteBuffer(ByteBuffer())), promise: written)
        written.futureResult.whenComplete { _ in
            guard after == .linger else { return channel.close(promise: nil) }
            // A channel that cannot shut one side (as EmbeddedChannel) closes both.
            channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
        }
    }

    func closeConnection() {
        self.machine.closeNow()
        self.heldHead = nil
        self.context?.close(promise: nil)
    }

    func exchangeFinished(_ exchange: any ConnectionExchange) {
        guard self.exchange === exchange else { return }
        self.exchange = nil
        if self.machine.requestFinished(now: self.now) { self.context?.close(promise: nil) }
        self.advance()
    }

    // MARK: Request bodies

    func requestBodyWanted(_ wanted: Bool) {
        guard let context else { return }
        if self.machine.bodyWanted(wanted, now: self.now) {
            context.writeAndFlush(self.wrapOutboundOut(.byteBuffer(ByteBuffer(staticString: "HTTP/1.1 100 Continue\r\n\r\n"))), promise: nil)
        }
        if wanted { self.advance() } else { self.timer?.set(self.machine.deadline) }
    }

    // MARK: Deadline

    /// The event loop's clock: the one its timers keep (virtual on an `EmbeddedEventLoop`).
    private var now: NIODeadline { self.context?.eventLoop.now ?? .now() }
}
