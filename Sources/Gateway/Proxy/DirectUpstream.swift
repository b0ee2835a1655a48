import HTTPTypes
import NIOCore
import NIOHTTPTypes
import NIOPosix
import NIOSSL

/// What one exchange on a ``DirectUpstreamConnection`` hears, on the connection's event loop.
protocol DirectUpstreamReceiver: AnyObject {
    /// The final response head (interim 1xx answers are skipped).
    func upstreamHead(_ response: HTTPResponse)
    func upstreamBody(_ buffer: ByteBuffer)
    /// A batch of reads is over: what was written on may be flushed.
    func upstreamReadComplete()
    func upstreamEnd()
    /// The connection failed or closed before the response's end; `timedOut`: because the head did not come in time.
    func upstreamFailed(timedOut: Bool)
}

/// A keep-alive HTTP/1.1 connection to an upstream, driven by callbacks on its event loop (no task, no async
/// stream): the upstream side of the direct path (``DirectPathHandler``). One exchange at a time; the handler is
/// the connection, and like every channel handler it is only touched on its channel's event loop (hence the
/// unchecked `Sendable`: it is passed between futures of that loop, never to another thread).
final class DirectUpstreamConnection: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPRequestPart

    private var context: ChannelHandlerContext?
    private var receiver: (any DirectUpstreamReceiver)?
    /// The final head of the current exchange has arrived.
    private var headReceived = false
    /// Cleared when the connection must not carry another exchange (`Connection: close`, a failure).
    private(set) var isReusable = true
    /// When the connection closes: the response head is due (an exchange), or it has been idle long enough (in
    /// the pool); nil while an answer streams.
    private var deadline: NIODeadline?
    /// Checks the deadline. Scheduled lazily and left running when the deadline moves (a timer per exchange and
    /// another per pool stay would cost four heap operations a request): when it fires it closes the connection if
    /// the deadline has passed, waits for a later one, or ends.
    private var timer: (task: Scheduled<Void>, at: NIODeadline)?
    private var timedOut = false

    var isActive: Bool { self.context?.channel.isActive ?? false }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Sends a request without a body; the answer goes to `receiver`, and its head must come within `timeout`.
    func send(_ head: HTTPRequest, to receiver: any DirectUpstreamReceiver, timeout: TimeAmount) {
        guard let context, context.channel.isActive else {
            self.isReusable = false
            receiver.upstreamFailed(timedOut: false)
            return
        }
        self.receiver = receiver
        self.headReceived = false
        self.timedOut = false
        self.setDeadline(.now() + timeout)
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
    }

    /// Waits in a pool: closed once idle for `timeout`, unless taken (and given a new deadline) before.
    func idle(for timeout: TimeAmount) {
        self.setDeadline(.now() + timeout)
    }

    private func setDeadline(_ deadline: NIODeadline?) {
        self.deadline = deadline
        guard let deadline, let context else { return }
        if let timer = self.timer {
            // A timer that fires by then will see this deadline; one set later (an idle wait's) is replaced.
            guard timer.at > deadline else { return }
            timer.task.cancel()
        }
        let task = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(deadline: deadline) {
            self.timer = nil
            guard let deadline = self.deadline else { return }
            if deadline > .now() {
                self.setDeadline(deadline)
                return
            }
            // Waiting for a head: the exchange has timed out; otherwise idle too long in the pool.
            self.timedOut = self.receiver != nil
            self.close()
        }
        self.timer = (task, deadline)
    }

    /// Stops or resumes reading the answer (the client's side is not keeping up, or is again).
    func setReading(_ reading: Bool) {
        guard let context else { return }
        try? context.channel.syncOptions?.setOption(.autoRead, value: reading)
        if reading { context.read() }
    }

    /// Closes the connection; a receiver still waiting hears `upstreamFailed`.
    func close() {
        self.isReusable = false
        self.context?.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let receiver = self.receiver else {
            // Bytes nobody asked for: the connection's framing cannot be trusted any more.
            self.close()
            return
        }
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            guard head.status.kind != .informational else { return }
            if HopByHopHeaders.listsClose(head.headerFields[.connection]) { self.isReusable = false }
            self.headReceived = true
            self.deadline = nil
            receiver.upstreamHead(head)
        case .body(let buffer):
            if self.headReceived { receiver.upstreamBody(buffer) }
        case .end:
            // The end of an interim answer is not the end of the exchange.
            guard self.headReceived else { return }
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
        self.deadline = nil
        self.timer?.task.cancel()
        self.timer = nil
        let receiver = self.receiver
        self.receiver = nil
        receiver?.upstreamFailed(timedOut: self.timedOut)
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
    private let loops: [ObjectIdentifier: LoopIdle]

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
        var loops: [ObjectIdentifier: LoopIdle] = [:]
        for eventLoop in group.makeIterator() { loops[ObjectIdentifier(eventLoop)] = LoopIdle(eventLoop: eventLoop) }
        self.loops = loops
    }

    /// Whether this pool serves `eventLoop` (it serves the loops of the group it was made for).
    func serves(_ eventLoop: any EventLoop) -> Bool {
        self.loops[ObjectIdentifier(eventLoop)] != nil
    }

    /// An idle connection on `eventLoop` (called on it), or nil.
    func lease(on eventLoop: any EventLoop) -> DirectUpstreamConnection? {
        guard let idle = self.loops[ObjectIdentifier(eventLoop)] else { return nil }
        while let connection = idle.connections.popLast() {
            if connection.isActive && connection.isReusable { return connection }
            connection.close()
        }
        return nil
    }

    /// A new connection on `eventLoop`.
    func connect(on eventLoop: any EventLoop) -> EventLoopFuture<DirectUpstreamConnection> {
        let (upstream, tls) = (self.upstream, self.tls)
        return UpstreamConnection.bootstrap(on: eventLoop, timeout: self.connectTimeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try UpstreamConnection.addHTTPHandlers(to: channel, upstream: upstream, tls: tls)
                    try channel.pipeline.syncOperations.addHandler(DirectUpstreamConnection())
                }
            }
            .connect(host: self.upstream.host, port: self.upstream.port)
            .flatMapThrowing { channel in try channel.pipeline.syncOperations.handler(type: DirectUpstreamConnection.self) }
    }

    /// Takes back a connection whose exchange finished cleanly (called on its event loop); anything else is closed.
    func release(_ connection: DirectUpstreamConnection, on eventLoop: any EventLoop) {
        guard connection.isReusable, connection.isActive, let idle = self.loops[ObjectIdentifier(eventLoop)], !idle.closed else {
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
        for idle in self.loops.values {
            count += (try? await idle.eventLoop.submit { idle.connections.count { $0.isActive } }.get()) ?? 0
        }
        return count
    }

    /// Closes the idle connections and every one released from now on.
    func shutdown() {
        for idle in self.loops.values {
            idle.eventLoop.execute {
                idle.closed = true
                let connections = idle.connections
                idle.connections = []
                for connection in connections { connection.close() }
            }
        }
    }
}
