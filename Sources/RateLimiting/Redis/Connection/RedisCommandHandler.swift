import NIOCore

/// Where a command's reply goes, called on the connection's event loop: the reply, or why there is none.
typealias RedisReplyHandler = (Result<RESPValue, RateLimitStoreError>) -> Void

/// Pipelines commands on one connection and answers replies in order from a FIFO of pending requests (RESP replies
/// arrive in the order the commands were sent).
///
/// Commands are encoded straight into one outbound buffer and written once per event-loop tick: the checks made
/// while the loop handles one batch of reads leave in one `write(2)`, with no pipeline traversal, encoder handler
/// or promise per command. Replies are parsed here from the bytes read.
///
/// A request whose deadline passes fails with `.timeout`, but its place in the FIFO stays (its reply will still
/// come and is dropped), so one slow reply never shifts the answers of others. A connection whose oldest request
/// has waited longer than `stallLimit` is closed so the pool replaces it. When the connection closes, every
/// pending request fails with `.unavailable` (or the error that made this handler close it); those whose command
/// is known never to have left this process fail marked `notSent`, safe to send again on another connection:
/// commands still in the outbound buffer, and every batch queued in SwiftNIO behind the first batch that failed to
/// be written (that first one may have left in part).
final class RedisCommandHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private struct Pending {
        var reply: RedisReplyHandler?
        /// When the request fails with `.timeout` if its reply has not come.
        let deadline: NIODeadline
        let sentAt: NIODeadline
        /// The request's place in the order of commands written, to tell which batch it left in.
        let sequence: UInt64
    }

    /// A batch larger than this is handed to SwiftNIO at once (and another begun), so that a connection closed with
    /// writes queued can tell more of its commands apart as never sent.
    static let batchLimit = 64 * 1024

    private var pending = CircularBuffer<Pending>(initialCapacity: 16)
    private var context: ChannelHandlerContext?
    /// Commands encoded since the last write, and the sequence number of the first of them.
    private var outbound: ByteBuffer?
    private var outboundStart: UInt64 = 0
    private var nextSequence: UInt64 = 0
    private var flushScheduled = false
    /// Whether a batch has failed to be written (the first may have left in part; the later ones did not leave).
    private var batchWriteFailed = false
    /// Bytes read and not parsed yet (a reply split across reads).
    private var inbound: ByteBuffer?
    /// One timer for the connection, due at the earliest deadline of the requests pending when it was set: a timer
    /// per request cost a heap insertion and removal in the event loop's schedule for every check.
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?
    private var isClosed = false
    /// Why this handler is closing the connection, for the requests still pending when it closes.
    private var closingError: RateLimitStoreError?
    private let stallLimit: TimeAmount

    private static let asking = RedisCommand("ASKING")

    init(stallLimit: TimeAmount) {
        self.stallLimit = stallLimit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// Queues `command` (after `ASKING` when `asking`); `reply` gets its reply, or its failure. Called on the
    /// connection's event loop; the command leaves with the others of this loop tick.
    func enqueue(_ command: some RESPEncodable, asking: Bool, deadline: NIODeadline, reply: @escaping RedisReplyHandler) {
        guard !self.isClosed, let context = self.context else {
            reply(.failure(RateLimitStoreError.unavailable.markedNotSent().with(detail: "connection closed")))
            return
        }
        var buffer = self.outbound ?? context.channel.allocator.buffer(capacity: 512)
        let now = NIODeadline.now()
        if asking {
            // ASKING holds for the next command on this connection only: encoded right before it, nothing comes
            // between them. Its reply (+OK) is dropped.
            Self.asking.encode(into: &buffer)
            self.pending.append(Pending(reply: nil, deadline: deadline, sentAt: now, sequence: self.nextSequence))
            self.nextSequence += 1
        }
        command.encode(into: &buffer)
        self.pending.append(Pending(reply: reply, deadline: deadline, sentAt: now, sequence: self.nextSequence))
        self.nextSequence += 1
        self.outbound = buffer
        self.armTimer(for: deadline, context: context)
        if buffer.readableBytes >= Self.batchLimit {
            self.writeOutbound(context: context)
        }
        if !self.flushScheduled {
            self.flushScheduled = true
            // Once the loop's current work is over: the commands enqueued meanwhile leave together.
            context.eventLoop.assumeIsolated().execute { [self] in
                self.flushScheduled = false
                self.writeOutbound(context: context)
                context.flush()
            }
        }
    }

    /// Hands the outbound buffer to SwiftNIO (not flushed); a failed write marks its commands as not sent unless
    /// it is the first batch to fail.
    private func writeOutbound(context: ChannelHandlerContext) {
        guard !self.isClosed, let buffer = self.outbound else { return }
        self.outbound = nil
        let batch = self.outboundStart..<self.nextSequence
        self.outboundStart = self.nextSequence
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.assumeIsolated().whenFailure { [self] _ in
            self.batchFailed(batch)
        }
        context.write(Self.wrapOutboundOut(buffer), promise: written)
    }

    private func batchFailed(_ batch: Range<UInt64>) {
        guard self.batchWriteFailed else {
            self.batchWriteFailed = true
            return
        }
        var replies: [RedisReplyHandler] = []
        for index in self.pending.indices where batch.contains(self.pending[index].sequence) {
            if let reply = self.pending[index].reply { replies.append(reply) }
            self.pending[index].reply = nil
        }
        // Called once the FIFO is left alone: a reply handler may enqueue again.
        let notSent = RateLimitStoreError.unavailable.markedNotSent().with(detail: "write failed")
        for reply in replies { reply(.failure(notSent)) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = Self.unwrapInboundIn(data)
        if self.inbound == nil {
            self.inbound = bytes
        } else {
            self.inbound!.writeBuffer(&bytes)
        }
        do throws(RateLimitStoreError) {
            while !self.isClosed, let value = try RESPDecoder.parse(&self.inbound!) {
                guard let head = self.pending.popFirst() else {
                    self.fail(context: context, with: .protocolError.with(detail: "reply without a request"))
                    return
                }
                head.reply?(.success(value))
            }
        } catch {
            self.fail(context: context, with: error)
            return
        }
        if self.inbound?.readableBytes == 0 {
            // Let SwiftNIO reuse its read buffer.
            self.inbound = nil
        } else {
            self.inbound?.discardReadBytes()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.failAll(with: self.closingError ?? .unavailable.with(detail: "connection closed"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let storeError = (error as? RateLimitStoreError) ?? .unavailable.with(detail: "\(error)")
        self.fail(context: context, with: storeError)
    }

    /// Sets the timer for `deadline` unless it is set for an earlier one already.
    private func armTimer(for deadline: NIODeadline, context: ChannelHandlerContext) {
        if let due = self.timerDeadline, due <= deadline { return }
        self.timer?.cancel()
        self.timerDeadline = deadline
        self.timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            self.timerFired(context: context)
        }
    }

    /// Closes a stalled connection (first: the commands still in SwiftNIO's queue then fail as not sent), else fails
    /// the requests whose deadline has passed (their places in the FIFO stay) and sets the timer again for the
    /// earliest deadline left.
    private func timerFired(context: ChannelHandlerContext) {
        self.timer = nil
        self.timerDeadline = nil
        let now = NIODeadline.now()
        if let oldest = self.pending.first, now - oldest.sentAt > self.stallLimit {
            self.fail(context: context, with: .timeout.with(detail: "connection stalled"))
            return
        }
        var next: NIODeadline?
        var expired: [RedisReplyHandler] = []
        for index in self.pending.indices {
            guard let reply = self.pending[index].reply else { continue }
            if self.pending[index].deadline <= now {
                expired.append(reply)
                self.pending[index].reply = nil
            } else {
                next = min(next ?? self.pending[index].deadline, self.pending[index].deadline)
            }
        }
        // A connection whose requests have all timed out still waits for their replies: the stall check runs again.
        if next == nil, let oldest = self.pending.first { next = oldest.sentAt + self.stallLimit + .milliseconds(1) }
        if let next { self.armTimer(for: next, context: context) }
        // Called once the FIFO and the timer are left alone: a reply handler may enqueue again.
        for reply in expired { reply(.failure(.timeout)) }
    }

    /// Closes the connection, failing every pending request with `error`. The close comes first: SwiftNIO then
    /// fails the writes still queued (their commands are marked not sent, but for the first batch) before it
    /// reports the channel inactive, which fails the rest.
    private func fail(context: ChannelHandlerContext, with error: RateLimitStoreError) {
        self.closingError = self.closingError ?? error
        context.close(promise: nil)
        // Already closed, or closing elsewhere: nothing may stay pending.
        self.failAll(with: error)
    }

    private func failAll(with error: RateLimitStoreError) {
        self.isClosed = true
        self.timer?.cancel()
        self.timer = nil
        self.timerDeadline = nil
        self.inbound = nil
        // Commands still in the outbound buffer never left.
        let unwritten = self.outbound == nil ? self.nextSequence : self.outboundStart
        self.outbound = nil
        let notSent = RateLimitStoreError.unavailable.markedNotSent().with(detail: "connection closed before the command left")
        while let entry = self.pending.popFirst() {
            entry.reply?(.failure(entry.sequence >= unwritten ? notSent : error))
        }
    }
}
