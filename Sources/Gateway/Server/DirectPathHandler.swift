import HTTPTypes
import IDTokens
import Logging
import NIOCore
import NIOHTTPTypes

/// The direct path: the common proxied request — no body, its caller known without waiting, its upstream
/// connection pooled on the same event loop — handled here in the channel pipeline, with callbacks on the
/// connection's event loop, instead of in HummingbirdCore's per-connection task. That task costs two async
/// channels, a task switch each way and an allocation per part; this path costs none of them. Everything else
/// (bodies, `Expect`, Redis limits, a certificate refetch, built-in handlers) is handed on to the async path
/// unchanged, and `GatewayResponder.directStart` decides which, before anything is counted.
///
/// It sits last in the pipeline, where the async path's channel would read, so the handlers before it (the
/// connection guard, HummingbirdCore's idle and quiesce handling) see the direct path's requests and answers like
/// any others. Answers leave in request order: a request is taken here only when no answer of the async path is
/// outstanding, and while an exchange runs, later parts wait (and past a few, so does reading from the socket).
final class DirectPathHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum Held {
        case part(HTTPRequestPart)
        case inputClosed
    }

    let responder: GatewayResponder
    private var context: ChannelHandlerContext?
    /// Requests handed to the async path whose answers have not all been written.
    private var handedOn = 0
    /// The request being read was handed on: its body and end go the same way.
    private var handingOnBody = false
    private var exchange: DirectExchange?
    /// What arrived while an exchange ran, in order.
    private var held = CircularBuffer<Held>(initialCapacity: 4)
    private var readHeld = false
    private var draining = false

    init(responder: GatewayResponder) {
        self.responder = responder
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

    /// An exchange has written its answer's end, or given up.
    fileprivate func exchangeFinished(_ exchange: DirectExchange) {
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
        switch self.responder.directStart(head, channel: context.channel) {
        case .handOn:
            return false
        case .refuse(var request, let error):
            self.responder.metrics.requestStarted()
            self.responder.writeDirectError(error, for: &request, context: context)
            self.responder.directFinished(request, status: Int(error.status.code), upstream: nil)
            return true
        case .forward(let request, let route, let upstreamHead):
            self.responder.metrics.requestStarted()
            let exchange = DirectExchange(
                handler: self, context: context, request: request, route: route, head: upstreamHead
            )
            self.exchange = exchange
            exchange.begin()
            return true
        }
    }
}

/// One request forwarded on the direct path: a pooled (or new) upstream connection on the client's event loop,
/// the head sent, the answer streamed back as it comes (flushed at the end of each read batch, so a small answer
/// is one write), and the connection pooled again once the answer has ended. The same rules as
/// ``UpstreamForwarder``: the route's timeout bounds the wait for the answer's head (504); a failure before it is
/// a 502, after one retry on a new connection when a pooled one turns out closed; a failure in the body closes
/// the client's connection (the answer is truncated); the client going away closes the upstream connection.
private final class DirectExchange: DirectUpstreamReceiver {
    private enum State {
        case connecting
        case waitingForHead
        case streaming(status: Int)
        case done
    }

    private let handler: DirectPathHandler
    private let context: ChannelHandlerContext
    private var request: DirectRequest
    private let route: UpstreamRoute
    private let head: HTTPRequest
    private let timing: UpstreamTiming?
    private var state = State.connecting
    private var connection: DirectUpstreamConnection?
    private var reused = false
    private var retried = false
    private var sent = ContinuousClock.now
    /// Reading from the upstream stopped while the client catches up.
    private var paused = false

    init(
        handler: DirectPathHandler, context: ChannelHandlerContext, request: DirectRequest, route: UpstreamRoute, head: HTTPRequest
    ) {
        self.handler = handler
        self.context = context
        self.request = request
        self.route = route
        self.head = head
        self.timing = handler.responder.accessLog == nil ? nil : UpstreamTiming()
    }

    private var responder: GatewayResponder { self.handler.responder }

    func begin() {
        if let connection = self.route.directPool.lease(on: self.context.eventLoop) {
            self.send(on: connection, reused: true)
        } else {
            self.connect()
        }
    }

    private func connect() {
        self.state = .connecting
        let pool = self.route.directPool
        let eventLoop = self.context.eventLoop
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

    private func send(on connection: DirectUpstreamConnection, reused: Bool) {
        self.connection = connection
        self.reused = reused
        self.state = .waitingForHead
        self.sent = .now
        connection.send(self.head, to: self, timeout: self.route.timeout)
    }

    func upstreamHead(_ response: HTTPResponse) {
        guard case .waitingForHead = self.state else { return }
        let waited = self.sent.duration(to: .now)
        self.route.metrics.upstreamAnswered(route: self.route.name, duration: waited)
        self.timing?.record(waited)
        var fields = HopByHopHeaders.responseFields(response.headerFields)
        fields.append(contentsOf: self.request.limitHeaders)
        self.responder.finishDirectFields(&fields, self.request)
        self.state = .streaming(status: Int(response.status.code))
        self.context.write(NIOAny(HTTPResponsePart.head(HTTPResponse(status: response.status, headerFields: fields))), promise: nil)
    }

    func upstreamBody(_ buffer: ByteBuffer) {
        guard case .streaming = self.state else { return }
        self.context.write(NIOAny(HTTPResponsePart.body(buffer)), promise: nil)
    }

    func upstreamReadComplete() {
        guard case .streaming = self.state else { return }
        self.context.flush()
        if !self.context.channel.isWritable, !self.paused {
            self.paused = true
            self.connection?.setReading(false)
        }
    }

    func upstreamEnd() {
        guard case .streaming(let status) = self.state else { return }
        self.context.writeAndFlush(NIOAny(HTTPResponsePart.end(nil)), promise: nil)
        if let connection = self.connection {
            self.connection = nil
            if self.paused { connection.setReading(true) }
            self.route.directPool.release(connection, on: self.context.eventLoop)
        }
        self.finish(status: status)
    }

    func upstreamFailed(timedOut: Bool) {
        switch self.state {
        case .waitingForHead:
            self.connection = nil
            if timedOut {
                self.fail(.timeout)
            } else if self.reused, !self.retried {
                // A pooled connection the upstream had closed: once more, on a new one.
                self.retried = true
                self.connect()
            } else {
                self.fail(.unreachable("closed_before_answer"))
            }
        case .streaming(let status):
            // Closed in the middle of the body: the client's connection closes too, the answer truncated.
            self.connection = nil
            self.context.close(promise: nil)
            self.finish(status: status)
        case .connecting, .done:
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
        case .connecting, .waitingForHead:
            self.connection?.close()
            self.request.record.errorReason = "cancelled"
            self.finish(status: 503)
        }
    }

    func clientWritable() {
        guard self.paused else { return }
        self.paused = false
        self.connection?.setReading(true)
    }

    private func fail(_ failure: UpstreamRoute.Failure) {
        let error = self.route.answer(failure, requestID: self.request.requestID)
        self.responder.writeDirectError(error, for: &self.request, context: self.context)
        self.finish(status: Int(error.status.code))
    }

    private func finish(status: Int) {
        self.state = .done
        self.connection = nil
        self.responder.directFinished(self.request, status: status, upstream: self.timing)
        self.handler.exchangeFinished(self)
    }
}
