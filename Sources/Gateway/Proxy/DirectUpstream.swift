import GatewayConfig
import HTTPTypes
import HTTPWire
import NIOCore
import NIOPosix
import NIOSSL

/// What one exchange on a ``DirectUpstreamConnection`` hears, on the connection's event loop.
protocol DirectUpstreamReceiver: AnyObject {
    /// The final response head (interim 1xx answers are skipped).
    func upstreamHead(_ head: UpstreamHead)
    func upstreamBody(_ buffer: ByteBuffer)
    /// A batch of reads is over: what was written on may be flushed.
    func upstreamReadComplete()
    func upstreamEnd()
    /// The connection failed or closed before the response's end; `timedOut`: because the head did not come in time;
    /// `answered`: the upstream had sent bytes of an answer (perhaps ones refused as malformed), so it has read the request.
    func upstreamFailed(timedOut: Bool, answered: Bool)
    /// The upstream's socket takes more bytes again (a request body streaming to it).
    func upstreamWritable()
}

/// A keep-alive HTTP/1.1 connection to an upstream, driven by callbacks on its event loop (no task, no async
/// stream): the upstream side of the raw path (``RawPathHandler``). It sends a request
/// head made as bytes (``UpstreamRequestHead``) and reads the answer with ``UpstreamResponseParser`` (no HTTP codec, no type conversion):
/// strict framing, and any doubt about it closes the connection. One exchange at a time; the handler is the
/// connection, and like every channel handler it is only touched on its channel's event loop (hence the
/// unchecked `Sendable`: it is passed between futures of that loop, never to another thread).
final class DirectUpstreamConnection: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var context: ChannelHandlerContext?
    private var receiver: (any DirectUpstreamReceiver)?
    private var parser = UpstreamResponseParser()
    /// Cleared when the connection must not carry another exchange (`Connection: close`, a failure).
    private(set) var isReusable = true
    /// When the connection closes: the response head is due, the answer has not moved for the exchange's timeout
    /// (the upstream stalls in its body, or the client stopped reading), or it has been idle long enough in the pool.
    private var deadline: LoopDeadline?
    /// The exchange's timeout: for the head, then for each pause in the answer.
    private var timeout = TimeAmount.seconds(30)
    private var timedOut = false
    /// The upstream has sent bytes since the exchange's request left.
    private var answered = false
    /// The request's body is streaming up.
    private var streaming = false

    var isActive: Bool { self.context?.channel.isActive ?? false }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // `unowned`: `handlerRemoved` stops the deadline (see LoopDeadline).
        self.deadline = LoopDeadline(on: context.eventLoop) { [unowned self] in
            // In an exchange: it has timed out (its head or its answer stalled); otherwise idle too long in the pool.
            self.timedOut = self.receiver != nil
            self.close()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.deadline?.stop()
        self.context = nil
    }

    /// Sends a request (its body, if any, within `head`); the answer goes to `receiver`, and its head must come within `timeout`.
    func send(_ head: UpstreamRequestHead, to receiver: any DirectUpstreamReceiver, timeout: TimeAmount) {
        guard let context, context.channel.isActive else {
            self.isReusable = false
            receiver.upstreamFailed(timedOut: false, answered: false)
            return
        }
        self.receiver = receiver
        self.timedOut = false
        self.answered = false
        self.timeout = timeout
        self.parser.expectResponse(toHEAD: head.method == .head)
        // A body that streams after the head holds the timeout until its end is sent (``sendBody(_:chunked:)``).
        self.streaming = head.streams
        self.setDeadline(head.streams ? nil : .now() + timeout)
        // Flushed with the other requests this loop sends in the same batch of events (see LoopFlushes).
        context.write(self.wrapOutboundOut(head.bytes), promise: nil)
        LoopFlushes.flushLater(context)
    }

    /// Sends part of the request's body (after `send`), chunked if the head said so. The exchange's timeout runs only
    /// while the upstream is slow to take it (its socket not writable): waiting for the client's body is not the
    /// upstream's delay.
    func sendBody(_ buffer: ByteBuffer, chunked: Bool) {
        guard let context else { return }
        if chunked {
            var size = context.channel.allocator.buffer(capacity: 24)
            size.writeString(String(buffer.readableBytes, radix: 16))
            size.writeStaticString("\r\n")
            context.write(self.wrapOutboundOut(size), promise: nil)
            context.write(self.wrapOutboundOut(buffer), promise: nil)
            context.write(self.wrapOutboundOut(ByteBuffer(staticString: "\r\n")), promise: nil)
        } else {
            context.write(self.wrapOutboundOut(buffer), promise: nil)
        }
        LoopFlushes.flushLater(context)
        self.setDeadline(context.channel.isWritable ? nil : .now() + self.timeout)
    }

    /// Ends the request's body; the answer's head is due within the timeout from now.
    func sendBodyEnd(chunked: Bool) {
        guard let context else { return }
        self.streaming = false
        if chunked { context.write(self.wrapOutboundOut(ByteBuffer(staticString: "0\r\n\r\n")), promise: nil) }
        LoopFlushes.flushLater(context)
        self.setDeadline(.now() + self.timeout)
    }

    /// The upstream's socket takes more bytes now.
    var isWritable: Bool { self.context?.channel.isWritable ?? false }

    /// The request under way will not be sent whole: the connection cannot carry another.
    func abandon() {
        self.isReusable = false
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let receiver = self.receiver, self.streaming {
            self.setDeadline(nil)
            receiver.upstreamWritable()
        }
        context.fireChannelWritabilityChanged()
    }

    /// Waits in a pool: closed once idle for `timeout`, unless taken (and given a new deadline) before.
    func idle(for timeout: TimeAmount) {
        self.setDeadline(.now() + timeout)
    }

    private func setDeadline(_ deadline: NIODeadline?) {
        self.deadline?.set(deadline)
    }

    /// Stops or resumes reading the answer (the client's side is not keeping up, or is again). The answer's
    /// inactivity deadline keeps running: a client that stops reading for the timeout is cut off too.
    func setReading(_ reading: Bool) {
        guard let context else { return }
        try? context.channel.syncOptions?.setOption(.autoRead, value: reading)
        if reading {
            self.setDeadline(.now() + self.timeout)
            context.read()
        }
    }

    /// Closes the connection; a receiver still waiting hears `upstreamFailed`.
    func close() {
        self.isReusable = false
        self.context?.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = self.unwrapInboundIn(data)
        if self.receiver != nil { self.answered = true }
        var ended = false
        var moved = false
        do {
            // The end is delivered once the parser is done (it stops there), when its `keepAlive` can be read.
            try self.parser.feed(&bytes) { event in
                if case .end = event {
                    ended = true
                } else {
                    moved = true
                    self.deliver(event)
                }
            }
        } catch {
            // Bytes nobody asked for, or an answer whose framing cannot be trusted: neither it nor the connection
            // can be used.
            self.close()
            return
        }
        if ended {
            self.deliver(.end)
        } else if moved, self.receiver != nil {
            // The answer has moved (its head, or body bytes): the timeout runs again, once per read, from now.
            self.setDeadline(.now() + self.timeout)
        }
        // Bytes after the end of an answer, before the next request: the framing cannot be trusted any more.
        if bytes.readableBytes > 0 { self.close() }
    }

    private func deliver(_ event: UpstreamResponseParser.Event) {
        guard let receiver = self.receiver else { return }
        switch event {
        case .head(let head):
            receiver.upstreamHead(head)
        case .body(let buffer):
            receiver.upstreamBody(buffer)
        case .end:
            if !self.parser.keepAlive { self.isReusable = false }
            self.receiver = nil
            receiver.upstreamEnd()
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        self.receiver?.upstreamReadComplete()
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.isReusable = false
        self.deadline?.stop()
        // An answer whose body runs until the close ends here.
        var ended = false
        try? self.parser.feedEOF { event in
            if case .end = event { ended = true } else { self.deliver(event) }
        }
        if ended { self.deliver(.end) }
        let receiver = self.receiver
        self.receiver = nil
        receiver?.upstreamFailed(timedOut: self.timedOut, answered: self.answered)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.close()
    }
}

/// Idle ``DirectUpstreamConnection``s to one upstream, a list per event loop, each list touched only on its own
/// loop: no lock on the hot path. Reuse is last-in first-out (the warmest first); a connection the upstream has
/// closed meanwhile is dropped when picked, and one idle for `idleTimeout` is closed.
final class DirectUpstreamPool: Sendable {
    let upstream: UpstreamURL
    let connectTimeout: TimeAmount
    let maxIdlePerEventLoop: Int
    let idleTimeout: TimeAmount
    private let tls: NIOSSLContext?
    /// One per event loop of the group: a handful, found by identity (cheaper than hashing, three times a request).
    private let loops: [LoopIdle]

    /// One loop's idle connections; confined to that loop.
    private final class LoopIdle: @unchecked Sendable {
        let eventLoop: any EventLoop
        var connections: [DirectUpstreamConnection] = []
        var closed = false

        init(eventLoop: any EventLoop) {
            self.eventLoop = eventLoop
        }
    }

    /// - Parameter group: the event loops the server's connections run on.
    init(
        upstream: UpstreamURL, connectTimeout: TimeAmount, maxIdlePerEventLoop: Int, idleTimeout: TimeAmount, tls: NIOSSLContext?,
        group: MultiThreadedEventLoopGroup = .singleton
    ) {
        self.upstream = upstream
        self.connectTimeout = connectTimeout
        self.maxIdlePerEventLoop = maxIdlePerEventLoop
        self.idleTimeout = idleTimeout
        self.tls = tls
        self.loops = group.makeIterator().map { LoopIdle(eventLoop: $0) }
    }

    private func idle(on eventLoop: any EventLoop) -> LoopIdle? {
        self.loops.first { $0.eventLoop === eventLoop }
    }

    /// An idle connection on `eventLoop` (called on it), or nil.
    func lease(on eventLoop: any EventLoop) -> DirectUpstreamConnection? {
        guard let idle = self.idle(on: eventLoop) else { return nil }
        while let connection = idle.connections.popLast() {
            if connection.isActive && connection.isReusable { return connection }
            connection.close()
        }
        return nil
    }

    /// A new connection on `eventLoop`.
    func connect(on eventLoop: any EventLoop) -> EventLoopFuture<DirectUpstreamConnection> {
        let (upstream, tls) = (self.upstream, self.tls)
        return ClientBootstrap(group: eventLoop).connectTimeout(self.connectTimeout).channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        let serverHostname = upstream.host.contains(":") ? nil : upstream.host
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverHostname))
                    }
                    try channel.pipeline.syncOperations.addHandler(DirectUpstreamConnection())
                }
            }
            .connect(host: self.upstream.host, port: self.upstream.port)
            .flatMapThrowing { channel in try channel.pipeline.syncOperations.handler(type: DirectUpstreamConnection.self) }
    }

    /// Takes back a connection whose exchange finished cleanly (called on its event loop); anything else is closed.
    func release(_ connection: DirectUpstreamConnection, on eventLoop: any EventLoop) {
        guard connection.isReusable, connection.isActive, let idle = self.idle(on: eventLoop), !idle.closed else {
            connection.close()
            return
        }
        if idle.connections.count >= self.maxIdlePerEventLoop {
            // Connections closed while idle (their idle time ran out, or the upstream closed them) stay listed until
            // picked; make room by dropping them first.
            idle.connections.removeAll { !$0.isActive }
            guard idle.connections.count < self.maxIdlePerEventLoop else {
                connection.close()
                return
            }
        }
        connection.idle(for: self.idleTimeout)
        idle.connections.append(connection)
    }

    /// Open idle connections on every loop (for tests; hops to each loop).
    func idleCount() async -> Int {
        var count = 0
        for idle in self.loops {
            count += (try? await idle.eventLoop.submit { idle.connections.count { $0.isActive } }.get()) ?? 0
        }
        return count
    }

    /// Closes the idle connections and every one released from now on.
    func shutdown() {
        for idle in self.loops {
            idle.eventLoop.execute {
                idle.closed = true
                let connections = idle.connections
                idle.connections = []
                for connection in connections { connection.close() }
            }
        }
    }
}

/// A request for an upstream, made as bytes and ready to send (and to send again, on a retry): as SwiftNIO's encoder
/// writes the same request, `Host` from the authority first, then the fields (``UpstreamRequestHeaders`` writes them
/// here, with no `HTTPFields` in between), then the body when the client's came whole with its head.
struct UpstreamRequestHead: FieldOutput {
    let method: HTTPRequest.Method
    private(set) var bytes: ByteBuffer
    /// The request carries a body (it is not sent again on a new connection: see `retriesOnStaleConnection`).
    private(set) var hasBody = false
    /// The body streams after the head (``DirectUpstreamConnection/sendBody(_:chunked:)``).
    private(set) var streams = false
    /// A body that streams after the head is sent in chunks.
    private(set) var chunked = false

    /// The request line and `Host`.
    init(method: HTTPRequest.Method, path: String, authority: String, allocator: ByteBufferAllocator) {
        self.method = method
        self.bytes = allocator.buffer(capacity: 1024)
        self.bytes.writeString(method.rawValue)
        self.bytes.writeStaticString(" ")
        self.bytes.writeString(path)
        self.bytes.writeStaticString(" HTTP/1.1\r\nHost: ")
        self.bytes.writeString(authority)
        self.bytes.writeStaticString("\r\n")
    }

    mutating func append(_ field: HTTPField) {
        self.bytes.append(field)
    }

    /// Ends the head, framing the body by its length, and appends the body. A request without one whose client
    /// declared an (empty) body, or whose method's requests carry one (POST, PUT, PATCH), says so with `Content-Length: 0`.
    mutating func end(body: ByteBuffer? = nil, clientSentLength: Bool) {
        if let body, body.readableBytes > 0 {
            self.hasBody = true
            self.bytes.writeStaticString("content-length: ")
            self.bytes.writeString(String(body.readableBytes))
            self.bytes.writeStaticString("\r\n\r\n")
            self.bytes.writeImmutableBuffer(body)
            return
        }
        if clientSentLength || self.method == .post || self.method == .put || self.method == .patch {
            self.bytes.writeStaticString("content-length: 0\r\n")
        }
        self.bytes.writeStaticString("\r\n")
    }

    /// Ends the head of a request whose body streams after it: with its length when the client gave one, else
    /// chunked. The framing is always written out, whatever the method: a body after a head that declares none would
    /// be read by the upstream as a request of its own.
    mutating func end(streaming framing: RequestBodyFraming) {
        self.hasBody = true
        self.streams = true
        if case .length(let length) = framing {
            self.bytes.writeStaticString("content-length: ")
            self.bytes.writeString(String(length))
            self.bytes.writeStaticString("\r\n\r\n")
        } else {
            self.chunked = true
            self.bytes.writeStaticString("transfer-encoding: chunked\r\n\r\n")
        }
    }
}
