import HTTPTypes
import HTTPWire
package import NIOCore

/// A keep-alive HTTP/1.1 connection to an upstream, driven by callbacks on its event loop (no task, no async
/// stream). It sends a request head made as bytes (``UpstreamRequestHead``) and reads the answer with
/// ``UpstreamResponseParser`` (no HTTP codec, no type conversion): strict framing, and any doubt about it closes the
/// connection. One exchange at a time; the handler is the connection, and like every channel handler it is only
/// touched on its channel's event loop (hence the unchecked `Sendable`: it is passed between futures of that loop,
/// never to another thread).
package final class UpstreamConnection: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    package typealias InboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private var context: ChannelHandlerContext?
    private var receiver: (any UpstreamReceiver)?
    private var parser = UpstreamResponseParser()
    /// Cleared when the connection must not carry another exchange (`Connection: close`, a failure).
    package private(set) var isReusable = true
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

    package var isActive: Bool { self.context?.channel.isActive ?? false }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // `unowned`: `handlerRemoved` stops the deadline (see LoopDeadline).
        self.deadline = LoopDeadline(on: context.eventLoop) { [unowned self] in
            // In an exchange: it has timed out (its head or its answer stalled); otherwise idle too long in the pool.
            self.timedOut = self.receiver != nil
            self.close()
        }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        self.deadline?.stop()
        self.context = nil
    }

    /// Sends a request (its body, if any, within `head`); the answer goes to `receiver`, and its head must come within `timeout`.
    package func send(_ head: UpstreamRequestHead, to receiver: any UpstreamReceiver, timeout: TimeAmount) {
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
        self.setDeadline(head.streams ? nil : self.now + timeout)
        // Flushed with the other requests this loop sends in the same batch of events (see LoopFlushes).
        context.write(self.wrapOutboundOut(head.bytes), promise: nil)
        LoopFlushes.flushLater(context)
    }

    /// Sends part of the request's body (after `send`), chunked if the head said so. The exchange's timeout runs only
    /// while the upstream is slow to take it (its socket not writable): waiting for the client's body is not the
    /// upstream's delay.
    package func sendBody(_ buffer: ByteBuffer, chunked: Bool) {
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
        self.setDeadline(context.channel.isWritable ? nil : self.now + self.timeout)
    }

    /// Ends the request's body; the answer's head is due within the timeout from now.
    package func sendBodyEnd(chunked: Bool) {
        guard let context else { return }
        self.streaming = false
        if chunked { context.write(self.wrapOutboundOut(ByteBuffer(staticString: "0\r\n\r\n")), promise: nil) }
        LoopFlushes.flushLater(context)
        self.setDeadline(self.now + self.timeout)
    }

    /// The upstream's socket takes more bytes now.
    package var isWritable: Bool { self.context?.channel.isWritable ?? false }

    /// The request under way will not be sent whole: the connection cannot carry another.
    package func abandon() {
        self.isReusable = false
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let receiver = self.receiver, self.streaming {
            self.setDeadline(nil)
            receiver.upstreamWritable()
        }
        context.fireChannelWritabilityChanged()
    }

    /// Waits in a pool: closed once idle for `timeout`, unless taken before.
    func idle(for timeout: TimeAmount) {
        self.setDeadline(self.now + timeout)
    }

    /// Taken from the pool: its exchange sets the next deadline.
    func leased() {
        self.setDeadline(nil)
    }

    /// The event loop's clock: the one its timers keep (virtual on an `EmbeddedEventLoop`).
    private var now: NIODeadline { self.context?.eventLoop.now ?? .now() }

    private func setDeadline(_ deadline: NIODeadline?) {
        self.deadline?.set(deadline)
    }

    /// Stops or resumes reading the answer (the client's side is not keeping up, or is again). The answer's
    /// inactivity deadline keeps running: a client that stops reading for the timeout is cut off too.
    package func setReading(_ reading: Bool) {
        guard let context else { return }
        try? context.channel.syncOptions?.setOption(.autoRead, value: reading)
        if reading {
            self.setDeadline(self.now + self.timeout)
            context.read()
        }
    }

    /// Closes the connection; a receiver still waiting hears `upstreamFailed`.
    package func close() {
        self.isReusable = false
        self.context?.close(promise: nil)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
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
            self.setDeadline(self.now + self.timeout)
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

    package func channelReadComplete(context: ChannelHandlerContext) {
        self.receiver?.upstreamReadComplete()
        context.fireChannelReadComplete()
    }

    package func channelInactive(context: ChannelHandlerContext) {
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

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.close()
    }
}

