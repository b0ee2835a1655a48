import NIOCore

/// Pipelines commands on one connection: writes each command as it comes and answers replies in order from a
/// FIFO of pending promises (RESP replies arrive in the order the commands were sent).
///
/// A request whose deadline passes fails with `.timeout`, but its place in the FIFO stays (its reply will still
/// come and is dropped), so one slow reply never shifts the answers of others. A connection whose oldest request
/// has waited longer than `stallLimit` is closed so the pool replaces it. When the connection closes, every
/// pending request fails with `.unavailable` (or the error that made this handler close it), except those whose
/// command never left SwiftNIO's write queue: their write fails first, and `RedisConnection.send` reports them as
/// not sent, safe to send again on another connection.
final class RedisCommandHandler: ChannelDuplexHandler {
    typealias InboundIn = RESPValue
    typealias OutboundIn = RedisRequest
    typealias OutboundOut = RedisCommand

    private struct Pending {
        var promise: EventLoopPromise<RESPValue>?
        /// When the request fails with `.timeout` if its reply has not come.
        let deadline: NIODeadline
        let sentAt: NIODeadline
    }

    private var pending = CircularBuffer<Pending>(initialCapacity: 16)
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

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = Self.unwrapOutboundIn(data)
        guard !self.isClosed else {
            request.promise.fail(RateLimitStoreError.unavailable.markedNotSent().with(detail: "connection closed"))
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        if request.asking {
            // ASKING holds for the next command on this connection only: written here, nothing comes between them.
            // Its reply (+OK) is dropped.
            self.pending.append(Pending(promise: nil, deadline: request.deadline, sentAt: .now()))
            context.write(Self.wrapOutboundOut(Self.asking), promise: nil)
        }
        self.pending.append(Pending(promise: request.promise, deadline: request.deadline, sentAt: .now()))
        self.armTimer(for: request.deadline, context: context)
        context.write(Self.wrapOutboundOut(request.command), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let value = Self.unwrapInboundIn(data)
        guard let head = self.pending.popFirst() else {
            self.fail(context: context, with: .protocolError.with(detail: "reply without a request"))
            return
        }
        head.promise?.succeed(value)
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
        for index in self.pending.indices where self.pending[index].promise != nil {
            if self.pending[index].deadline <= now {
                self.pending[index].promise?.fail(RateLimitStoreError.timeout)
                self.pending[index].promise = nil
            } else {
                next = min(next ?? self.pending[index].deadline, self.pending[index].deadline)
            }
        }
        // A connection whose requests have all timed out still waits for their replies: the stall check runs again.
        if next == nil, let oldest = self.pending.first { next = oldest.sentAt + self.stallLimit + .milliseconds(1) }
        if let next { self.armTimer(for: next, context: context) }
    }

    /// Closes the connection, failing every pending request with `error`. The close comes first: SwiftNIO then
    /// fails the writes still queued (their commands never reached Redis, and `send` marks them not sent) before
    /// it reports the channel inactive, which fails the rest.
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
        while let entry = self.pending.popFirst() {
            entry.promise?.fail(error)
        }
    }
}
