import HTTPTypes
import IDTokens
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// The direct path: the common proxied request — no body, its upstream connection pooled on the same event loop —
/// handled here in the channel pipeline, with callbacks on the connection's event loop, instead of in HummingbirdCore's
/// per-connection task. That task costs two async channels, a task switch each way and an allocation per part; this
/// path costs none of them (rules that need I/O, a Redis limit or a certificate refetch, run in a task of their own
/// on the same loop). Everything else (bodies, `Expect`, built-in handlers) is handed on to the async path unchanged,
/// and `GatewayResponder.directStart` decides which, before anything is counted.
///
/// It sits last in the pipeline, where the async path's channel would read, so the handlers before it (the
/// connection guard, HummingbirdCore's idle and quiesce handling) see the direct path's requests and answers like
/// any others. Answers leave in request order: a request is taken here only when no answer of the async path is
/// outstanding, and while an exchange runs, later parts wait (and past a few, so does reading from the socket).
final class DirectPathHandler: ChannelDuplexHandler, RemovableChannelHandler, DirectAnswerSink {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum Held {
        case part(HTTPRequestPart)
        case inputClosed
    }

    /// The responder of the current configuration, taken again when a reload has published another.
    private(set) var responder: GatewayResponder
    private let live: LiveResponder
    private var generation: Int
    private var context: ChannelHandlerContext?
    /// The peer's address as text, for every request on the connection (formatting it is not free).
    private lazy var peer: String? = self.context?.channel.remoteAddress?.ipAddress
    /// Requests handed to the async path whose answers have not all been written.
    private var handedOn = 0
    /// The request being read was handed on: its body and end go the same way.
    private var handingOnBody = false
    private var exchange: DirectExchange?
    /// What arrived while an exchange ran, in order.
    private var held = CircularBuffer<Held>(initialCapacity: 4)
    private var readHeld = false
    private var draining = false

    init(responder: LiveResponder) {
        let published = responder.load()
        self.live = responder
        self.responder = published.responder
        self.generation = published.generation
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.exchange?.clientGone()
        self.exchange = nil
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.held.append(.part(self.unwrapInboundIn(data)))
        self.drain(context, inReadBatch: true)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed, self.exchange != nil || !self.held.isEmpty {
            // After the answers to what came before it.
            self.held.append(.inputClosed)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// A request that cannot be read is answered by ``ConnectionGuard``, after the answers under way. The connection's
    /// task hears of it only while one of its own requests is unanswered (its handler may be reading that body);
    /// otherwise it would answer the error too, with a bare 400, in place of the direct path's answer still to come.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if self.handedOn == 0, error is HTTPParserError || error is FaultyFraming { return }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.exchange?.clientGone()
        self.exchange = nil
        self.held.removeAll()
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { self.exchange?.clientWritable() }
        context.fireChannelWritabilityChanged()
    }

    /// Reading goes on during an exchange (stopping and restarting it would cost two `epoll_ctl` calls a request),
    /// unless a client pipelining ahead has filled the queue of what waits.
    func read(context: ChannelHandlerContext) {
        if self.held.count >= Self.maxHeld {
            self.readHeld = true
        } else {
            context.read()
        }
    }

    /// Parts (and events) that may wait for an exchange before reading stops.
    static let maxHeld = 16

    /// Answers from the async path.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = self.unwrapOutboundIn(data), self.handedOn > 0 { self.handedOn -= 1 }
        context.write(data, promise: promise)
    }

    // MARK: DirectAnswerSink: the answer goes on as HTTP parts, through the handlers before this one.

    var isWritable: Bool { self.context?.channel.isWritable ?? false }

    func writeHead(_ response: HTTPResponse, for request: DirectRequest) {
        self.context?.write(self.wrapOutboundOut(.head(response)), promise: nil)
    }

    func writeUpstreamHead(_ head: UpstreamHead, for request: DirectRequest, responder: GatewayResponder) {
        var fields = HopByHopHeaders.responseFields(head.response.headerFields)
        responder.finishDirectFields(&fields, request)
        self.writeHead(HTTPResponse(status: head.status, headerFields: fields), for: request)
    }

    func writeBody(_ buffer: ByteBuffer) {
        self.context?.write(self.wrapOutboundOut(.body(buffer)), promise: nil)
    }

    func flush() {
        self.context?.flush()
    }

    func writeEnd(for request: DirectRequest) {
        self.context?.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
    }

    func closeConnection() {
        self.context?.close(promise: nil)
    }

    /// An exchange has written its answer's end, or given up.
    func exchangeFinished(_ exchange: DirectExchange) {
        guard self.exchange === exchange else { return }
        self.exchange = nil
        if let context { self.drain(context, inReadBatch: false) }
    }

    /// Takes what is held, in order, until an exchange starts or nothing is left.
    private func drain(_ context: ChannelHandlerContext, inReadBatch: Bool) {
        guard !self.draining else { return }
        self.draining = true
        defer { self.draining = false }
        var handedOnAny = false
        while self.exchange == nil, let item = self.held.popFirst() {
            switch item {
            case .part(let part):
                handedOnAny = self.process(part, context: context) || handedOnAny
            case .inputClosed:
                context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            }
        }
        // The async path's channel delivers what it read at the end of a read batch; outside one, end one here.
        if handedOnAny, !inReadBatch { context.fireChannelReadComplete() }
        if self.held.count < Self.maxHeld, self.readHeld {
            self.readHeld = false
            context.read()
        }
    }

    /// Whether the part was handed on.
    private func process(_ part: HTTPRequestPart, context: ChannelHandlerContext) -> Bool {
        switch part {
        case .head(let head):
            if self.handedOn == 0, self.start(head, context: context) { return false }
            self.handedOn += 1
            self.handingOnBody = true
        case .body:
            // A body only follows a head that was handed on (the direct path takes none).
            guard self.handingOnBody else { return false }
        case .end:
            guard self.handingOnBody else { return false }
            self.handingOnBody = false
        }
        context.fireChannelRead(self.wrapInboundOut(part))
        return true
    }

    /// Whether the direct path took the request.
    private func start(_ head: HTTPRequest, context: ChannelHandlerContext) -> Bool {
        if self.live.generation != self.generation { (self.responder, self.generation) = self.live.load().pair }
        switch self.responder.directStart(head, channel: context.channel, peer: self.peer) {
        case .handOn:
            return false
        case .refuse(let request, let error):
            self.responder.metrics.requestStarted()
            self.responder.writeDirectError(error, for: request, to: self)
            self.responder.directFinished(request, status: Int(error.status.code), upstream: nil)
            return true
        case .forward(let request, let route, let upstreamHead):
            self.responder.metrics.requestStarted()
            let exchange = DirectExchange(sink: self, eventLoop: context.eventLoop, responder: self.responder, request: request, route: route)
            self.exchange = exchange
            exchange.begin(upstreamHead)
            return true
        case .decide(let request, let pending):
            self.responder.metrics.requestStarted()
            let exchange = DirectExchange(
                sink: self, eventLoop: context.eventLoop, responder: self.responder, request: request, route: pending.upstream
            )
            self.exchange = exchange
            exchange.decide(pending)
            return true
        }
    }
}
