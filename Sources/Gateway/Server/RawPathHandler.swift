import HTTPTypes
import HTTPWire
import NIOCore

/// The raw path: requests read straight from the connection's bytes and answered straight onto it, first in the
/// pipeline, so a request — proxied or for a built-in handler, body-less or with a small body read with its head —
/// costs no HTTP codec, no type conversion and no trip through the other handlers.
///
/// A connection starts here. ``RawRequestHead`` reads each request head; ``GatewayResponder/directStart(_:authorization:body:channel:peer:)``
/// decides: a ``DirectExchange`` applies the rules (``RequestRules``) and forwards it, or a ``BuiltinExchange`` runs
/// its route's handler. The first request this path does not take — one that `RawRequestHead` leaves to the general
/// parser (a large or streamed body, HTTP/1.0, anything unusual), or one `directStart` hands on (`Expect`, a proxy
/// route the pools do not serve) — hands the connection over for good: its bytes, from that request on, go to the
/// handlers behind this one, which then see the connection become active (they were not told before, so their
/// timers start then) and read it as they always have. Nothing of a request is counted or answered before that choice.
///
/// While the connection is here, this handler keeps the server's rules those handlers would have kept: a head
/// must be complete within the header timeout of its first byte (or of the connection opening), an idle
/// connection closes after the idle timeout, answers leave in request order (one exchange at a time, later bytes
/// wait), `Connection: close` and a graceful shutdown close the connection after the answer under way, and a
/// client that half-closes gets its answers before the connection closes.
final class RawPathHandler: ChannelDuplexHandler, RemovableChannelHandler, DirectAnswerSink {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    struct Limits {
        var maxHeadBytes: Int
        var maxFields: Int
        var headerTimeout: TimeAmount
        var idleTimeout: TimeAmount
        var bodyTimeout: TimeAmount
    }

    /// The responder of the current configuration, taken again when a reload has published another.
    private var responder: GatewayResponder
    private let live: LiveResponder
    private var generation: Int
    private let limits: Limits
    private var context: ChannelHandlerContext?
    /// The peer's address as text, for every request on the connection (formatting it is not free).
    private lazy var peer: String? = self.context?.channel.remoteAddress?.ipAddress
    /// The connection has been handed over: everything passes through.
    private var handedOver = false
    /// The connection's task has taken its async channel (``connectionTaken()``).
    private var taken = false
    /// A request needs the handlers behind, but the connection's task has not taken the async channel yet: the
    /// handover waits for it, and bytes wait in `pending`.
    private var handoverWaiting = false
    /// `channelActive` was kept from the handlers behind this one until the handover.
    private var activeWithheld = false
    /// Bytes read and not yet taken (the start of the next request, or pipelined requests waiting for an exchange).
    private var pending: ByteBuffer?
    private var exchange: (any ConnectionExchange)?
    private var processing = false
    private var inputClosed = false
    private var quiescing = false
    /// An answer asked for the connection to close: nothing more is read or answered.
    private var closing = false
    private var readHeld = false
    /// `autoRead` is off and this handler asks for each read: SwiftNIO's automatic read starts at the pipeline's
    /// tail and passes every handler behind this one (about 5 % of the gateway's user CPU per request), while a
    /// read asked for here goes straight to the socket. The handover turns `autoRead` back on.
    private var readsItself = false
    /// The answer's head, held back until its body's first bytes, its end or a flush, so that a small answer
    /// (the common one) leaves in one buffer, one write.
    private var heldHead: ByteBuffer?
    /// How the answer under way is framed.
    private var answerChunked = false
    private var answerWithoutBody = false
    /// When the connection closes unless something happens first: the head under way is due (header timeout), the
    /// connection has been idle long enough, or more of a request body is due (body timeout).
    private var deadline: LoopDeadline?
    /// The body of the request under way while it streams to its exchange (nil once read to its end).
    private var body: RequestBodyDecoder?
    /// The request under way has a body not yet read to its end: the connection closes after the answer.
    private var bodyOpen = false
    /// The exchange takes body parts now (it asked, and keeps up).
    private var bodyWanted = false
    /// `Expect: 100-continue` awaits its interim answer, sent when the exchange first asks for the body.
    private var continueDue = false
    private var pumping = false

    private static let noBytes = ByteBuffer()

    /// Bytes that may wait while an exchange runs before reading stops.
    static let maxPending = 64 * 1024

    /// The largest request body read here with its head and sent upstream with it (the functions' JSON, a form);
    /// a larger one goes to the general parser, which streams it.
    static let maxInlineBody = 16 * 1024

    init(responder: LiveResponder, limits: Limits) {
        let published = responder.load()
        self.live = responder
        self.responder = published.responder
        self.generation = published.generation
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // `unowned`: `handlerRemoved` stops the deadline (see LoopDeadline).
        self.deadline = LoopDeadline(on: context.eventLoop) { [unowned self] in
            guard !self.handedOver else { return }
            if self.bodyOpen, self.bodyWanted {
                // The client stopped sending its body: the exchange answers 408 if it can, then the connection closes.
                self.failBody(.timeout)
                return
            }
            self.closing = true
            self.context?.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.stopTimer()
        self.exchange?.clientGone()
        self.exchange = nil
        self.context = nil
    }

    // MARK: Inbound

    func channelActive(context: ChannelHandlerContext) {
        guard !self.handedOver else {
            context.fireChannelActive()
            return
        }
        self.activeWithheld = true
        self.setDeadline(self.now + self.limits.headerTimeout)
        // Called before SwiftNIO's first automatic read, which this stops.
        if (try? context.channel.syncOptions?.setOption(.autoRead, value: false)) != nil {
            self.readsItself = true
            self.read(context: context)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !self.handedOver else {
            context.fireChannelRead(data)
            return
        }
        guard !self.closing else { return }
        var incoming = self.unwrapInboundIn(data)
        if var pending = self.pending, pending.readableBytes > 0 {
            self.pending = nil
            pending.writeBuffer(&incoming)
            self.pending = pending
        } else {
            self.pending = incoming
            // The first byte of a request: its head is due within the header timeout.
            if self.exchange == nil { self.setDeadline(self.now + self.limits.headerTimeout) }
        }
        if self.exchange == nil { self.process(context) } else if self.bodyOpen { self.pumpBody() }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if self.handedOver {
            context.fireChannelReadComplete()
        } else if self.readsItself {
            // What `autoRead` does next, from here. Reading goes on while closing too: the socket is drained.
            self.read(context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard !self.handedOver else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        switch event {
        case let event as ChannelEvent where event == .inputClosed:
            self.inputClosed = true
            if let exchange = self.exchange {
                exchange.clientHalfClosed()
                if self.bodyOpen { self.pumpBody() }
            } else {
                self.process(context)
            }
        case is ChannelShouldQuiesceEvent:
            // As HummingbirdCore's connection handler: close now if idle, else after the answer under way.
            self.quiescing = true
            if self.exchange == nil { context.close(promise: nil) }
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if !self.handedOver, context.channel.isWritable { self.exchange?.clientWritable() }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.stopTimer()
        self.exchange?.clientGone()
        self.exchange = nil
        self.pending = nil
        context.fireChannelInactive()
    }

    // MARK: Outbound

    /// Reading goes on during an exchange unless a client pipelining ahead has sent too much.
    func read(context: ChannelHandlerContext) {
        if !self.handedOver, (self.pending?.readableBytes ?? 0) >= Self.maxPending {
            self.readHeld = true
        } else {
            context.read()
        }
    }

    // MARK: Requests

    /// Takes the requests waiting, in order, until an exchange starts, more bytes are needed, or the connection is
    /// handed over or closes.
    private func process(_ context: ChannelHandlerContext) {
        guard !self.processing else { return }
        self.processing = true
        defer { self.processing = false }
        while !self.handedOver, !self.handoverWaiting, !self.closing, self.exchange == nil {
            guard var bytes = self.pending, bytes.readableBytes > 0 else {
                self.pending = nil
                if self.inputClosed {
                    // The client has sent all it will, and everything is answered.
                    self.closing = true
                    context.close(promise: nil)
                }
                break
            }
            let outcome = bytes.withUnsafeReadableBytes {
                RawRequestHead.parse($0, maxBytes: self.limits.maxHeadBytes, maxFields: self.limits.maxFields)
            }
            guard case .complete(let parsed) = outcome else {
                if case .incomplete = outcome, !self.inputClosed { break }
                self.handOver(context)
                return
            }
            let (head, authorization, appCheck, length) = (parsed.request, parsed.authorization, parsed.appCheck, parsed.length)
            // A small body that came whole with its head is taken with it; any other streams to the exchange.
            var body: ByteBuffer?
            var bodyLength = 0
            var streamed = false
            switch parsed.body {
            case .none:
                break
            case .length(let declared) where declared <= Self.maxInlineBody && !parsed.expectsContinue && bytes.readableBytes >= length + declared:
                bodyLength = declared
                body = bytes.getSlice(at: bytes.readerIndex + length, length: declared)
            case .length, .chunked:
                streamed = true
            }
            if self.live.generation != self.generation { (self.responder, self.generation) = self.live.load().pair }
            let start = self.responder.directStart(
                head, authorization: authorization, appCheck: appCheck, body: body, streamed: streamed ? parsed.body : .none,
                channel: context.channel, peer: self.peer
            )
            bytes.moveReaderIndex(forwardBy: length + bodyLength)
            self.pending = bytes.readableBytes > 0 ? bytes : nil
            self.responder.metrics.requestStarted()
            if streamed {
                // Read as the exchange asks for it (``requestBodyWanted(_:)``); until then its bytes wait.
                self.body = RequestBodyDecoder(parsed.body, maxTrailerBytes: self.limits.maxHeadBytes)
                self.bodyOpen = true
                self.bodyWanted = false
                self.continueDue = parsed.expectsContinue
            }
            switch start {
            case .refuse(let request, let error):
                // The next request's head is due from now if its bytes are here already; else the connection idles.
                self.setDeadline(self.now + (self.pending == nil ? self.limits.idleTimeout : self.limits.headerTimeout))
                // A body left unread ends the connection (``writeHead(_:for:)``).
                self.responder.writeDirectError(error, for: request, to: self)
                self.responder.directFinished(request, status: Int(error.status.code), upstream: nil)
            case .forward(let request, let route, let upstreamHead):
                // No deadline while the exchange runs (the upstream's timeout applies); it is set again at its end.
                self.setDeadline(nil)
                let exchange = DirectExchange(sink: self, eventLoop: context.eventLoop, responder: self.responder, request: request, route: route)
                self.exchange = exchange
                exchange.begin(upstreamHead)
            case .handle(let request, let route):
                // As for `forward`: the handler's own timeouts apply.
                self.setDeadline(nil)
                var head = head
                if let authorization { head.headerFields.append(HTTPField(name: .authorization, value: authorization)) }
                if let appCheck { head.headerFields.append(HTTPField(name: RequestRules.appCheckHeader, value: appCheck)) }
                let exchange = BuiltinExchange(sink: self, eventLoop: context.eventLoop, responder: self.responder, request: request)
                self.exchange = exchange
                exchange.start(head, body: body, streamed: streamed, route: route, channel: context.channel, peer: self.peer)
            case .decide(let request, let pending):
                // As for `forward`: the rules that wait on I/O are bounded by their own timeouts.
                self.setDeadline(nil)
                let exchange = DirectExchange(
                    sink: self, eventLoop: context.eventLoop, responder: self.responder, request: request, route: pending.upstream
                )
                self.exchange = exchange
                exchange.decide(pending)
            }
        }
        if self.readHeld, (self.pending?.readableBytes ?? 0) < Self.maxPending {
            self.readHeld = false
            context.read()
        }
    }

    /// HummingbirdCore's connection task has the connection's async channel: a handover may now tell the handlers
    /// behind this one that the connection is active. Until then the async channel's writer is held by its handler
    /// alone, and `channelActive` is when that handler lets it go — to an async channel that, were it dropped
    /// untaken (a server stopping with connections not yet handled), would be gone, and the writer torn down
    /// unfinished, which SwiftNIO traps on. An untaken connection never hands over: it waits until the stopping
    /// server's quiesce event closes it.
    func connectionTaken() {
        self.taken = true
        if self.handoverWaiting, let context {
            self.handoverWaiting = false
            self.handOver(context)
        }
    }

    /// From here on the handlers behind this one read the connection, starting with the bytes not yet taken.
    private func handOver(_ context: ChannelHandlerContext) {
        guard self.taken else {
            self.handoverWaiting = true
            // What is awaited now is the connection's task, which a busy process may start late, not the client: no
            // timeout applies (a short one closed requests a loaded test suite was about to answer). A connection
            // never taken is one a stopping server dropped, and the server's quiesce event closes it.
            self.setDeadline(nil)
            return
        }
        self.handedOver = true
        self.stopTimer()
        if self.activeWithheld, context.channel.isActive { context.fireChannelActive() }
        if let pending = self.pending {
            self.pending = nil
            context.fireChannelRead(self.wrapInboundOut(pending))
        }
        context.fireChannelReadComplete()
        if self.inputClosed { context.fireUserInboundEventTriggered(ChannelEvent.inputClosed) }
        if self.quiescing { context.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
        if self.readsItself {
            // Reading resumes (if held) and is SwiftNIO's again, through the handlers now reading the connection.
            self.readsItself = false
            self.readHeld = false
            try? context.channel.syncOptions?.setOption(.autoRead, value: true)
        } else {
            self.readHeld = false
        }
        // The next read is asked for from the pipeline's tail, as SwiftNIO asks after each read, so that every handler
        // sees it: the connection's task may hold it (backpressure), and ConnectionGuard starts a body's clock on it.
        // (Turning `autoRead` on has already read from the socket directly; this one passes on to it.)
        context.channel.read()
    }

    // MARK: DirectAnswerSink: the answer, framed as HTTP/1.1, goes straight to the socket.

    var isWritable: Bool { self.context?.channel.isWritable ?? false }

    func writeHead(_ response: HTTPResponse, for request: DirectRequest) {
        guard let context else { return }
        let mayHaveBody = Self.mayHaveBody(response.status)
        var head = context.channel.allocator.buffer(capacity: 512)
        HeadBytes.writeStatusLine(response.status, into: &head)
        if self.closesForBody(request) { head.writeStaticString("connection: close\r\n") }
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
    func writeUpstreamHead(_ upstream: UpstreamHead, for request: DirectRequest, responder: GatewayResponder) {
        guard let context else { return }
        let mayHaveBody = Self.mayHaveBody(upstream.status)
        var head = context.channel.allocator.buffer(capacity: 512 + upstream.lines.readableBytes)
        HeadBytes.writeStatusLine(upstream.status, into: &head)
        _ = self.closesForBody(request)
        let written = upstream.writeEndToEndFields(into: &head, omitting: GatewayResponder.requestIDHeader, withoutBody: !mayHaveBody)
        responder.appendDirectFields(to: &head, for: request, answerHasDate: written.date)
        self.endHead(&head, mayHaveBody: mayHaveBody, hasLength: written.contentLength, for: request, context: context)
    }

    /// An answer that starts before its request's body has been read to the end closes the connection after it
    /// (the rest of the body is not read); true when it must now say so, which it has not yet.
    private func closesForBody(_ request: DirectRequest) -> Bool {
        guard self.bodyOpen, !request.closesConnection else { return false }
        request.closesConnection = true
        return true
    }

    private static func mayHaveBody(_ status: HTTPResponse.Status) -> Bool {
        status.code >= 200 && status.code != 204 && status.code != 304
    }

    /// Frames the answer (`Content-Length` if given, else chunked), ends the head and writes it.
    private func endHead(_ head: inout ByteBuffer, mayHaveBody: Bool, hasLength: Bool, for request: DirectRequest, context: ChannelHandlerContext) {
        let chunked = mayHaveBody && !hasLength
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

    func writeEnd(for request: DirectRequest) {
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
        guard request.closesConnection || self.quiescing else {
            context.flush()
            return
        }
        // Nothing more is read or answered; the connection closes once the answer is out.
        self.closing = true
        self.pending = nil
        self.setDeadline(nil)
        let channel = context.channel
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(self.wrapOutboundOut(.byteBuffer(ByteBuffer())), promise: written)
        written.futureResult.whenComplete { _ in channel.close(promise: nil) }
    }

    func closeConnection() {
        self.closing = true
        self.heldHead = nil
        self.context?.close(promise: nil)
    }

    func exchangeFinished(_ exchange: any ConnectionExchange) {
        guard self.exchange === exchange else { return }
        self.exchange = nil
        guard let context, !self.closing else { return }
        if self.bodyOpen {
            // Its answer said `Connection: close` (``closesForBody(_:)``): nothing after it can be framed.
            self.closing = true
            self.context?.close(promise: nil)
            return
        }
        self.setDeadline(self.now + (self.pending == nil ? self.limits.idleTimeout : self.limits.headerTimeout))
        self.process(context)
    }

    // MARK: Request bodies

    func requestBodyWanted(_ wanted: Bool) {
        guard self.bodyOpen, self.body != nil, let context else { return }
        self.bodyWanted = wanted
        guard wanted else {
            self.setDeadline(nil)
            return
        }
        if self.continueDue {
            self.continueDue = false
            context.writeAndFlush(self.wrapOutboundOut(.byteBuffer(ByteBuffer(staticString: "HTTP/1.1 100 Continue\r\n\r\n"))), promise: nil)
        }
        self.pumpBody()
    }

    /// Passes the body's bytes read so far to the exchange while it wants them; waits for more under the body timeout.
    private func pumpBody() {
        guard !self.pumping, let context else { return }
        self.pumping = true
        defer { self.pumping = false }
        while self.bodyWanted, var decoder = self.body, let exchange = self.exchange {
            // No bytes waiting: the decoder may still have an end to give (a length read to its last byte).
            var bytes = self.pending ?? Self.noBytes
            self.pending = nil
            let part: RequestBodyDecoder.Part?
            do {
                part = try decoder.next(&bytes)
            } catch {
                self.failBody(.malformed(reason: error.reason))
                break
            }
            self.body = decoder
            self.pending = bytes.readableBytes > 0 ? bytes : nil
            switch part {
            case .data(let buffer):
                exchange.requestBody(buffer)
            case .end:
                self.body = nil
                self.bodyOpen = false
                self.bodyWanted = false
                self.setDeadline(nil)
                exchange.requestBodyEnd()
            case nil:
                // Not enough bytes to go on with (perhaps part of a size line or trailer).
                if self.inputClosed { self.failBody(.cutOff) } else { self.setDeadline(self.now + self.limits.bodyTimeout) }
                return self.resumeReading(context)
            }
        }
        self.resumeReading(context)
    }

    private func resumeReading(_ context: ChannelHandlerContext) {
        if self.readHeld, (self.pending?.readableBytes ?? 0) < Self.maxPending {
            self.readHeld = false
            context.read()
        }
    }

    /// The body cannot be read to its end: the exchange answers if it still can, and the connection closes after it.
    private func failBody(_ failure: RequestBodyFailure) {
        self.body = nil
        self.bodyWanted = false
        self.pending = nil
        self.setDeadline(nil)
        self.exchange?.requestBodyFailed(failure)
    }

    // MARK: Deadline

    /// The event loop's clock: the one its timers keep (virtual on an `EmbeddedEventLoop`).
    private var now: NIODeadline { self.context?.eventLoop.now ?? .now() }

    private func setDeadline(_ deadline: NIODeadline?) {
        self.deadline?.set(deadline)
    }

    private func stopTimer() {
        self.deadline?.stop()
    }
}
