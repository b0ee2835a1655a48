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
        let id: UInt64
        var promise: EventLoopPromise<RESPValue>?
        var timeout: Scheduled<Void>?
        let sentAt: NIODeadline
    }

    private var pending = CircularBuffer<Pending>(initialCapacity: 16)
    private var nextID: UInt64 = 0
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
            self.pending.append(Pending(id: self.nextID, promise: nil, timeout: nil, sentAt: .now()))
            self.nextID &+= 1
            context.write(Self.wrapOutboundOut(Self.asking), promise: nil)
        }
        let id = self.nextID
        self.nextID &+= 1
        let timeout = context.eventLoop.assumeIsolated().scheduleTask(deadline: request.deadline) { [self] in
            self.timedOut(id, context: context)
        }
        self.pending.append(Pending(id: id, promise: request.promise, timeout: timeout, sentAt: .now()))
        context.write(Self.wrapOutboundOut(request.command), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let value = Self.unwrapInboundIn(data)
        guard let head = self.pending.popFirst() else {
            self.fail(context: context, with: .protocolError.with(detail: "reply without a request"))
            return
        }
        head.timeout?.cancel()
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

    private func timedOut(_ id: UInt64, context: ChannelHandlerContext) {
        if let index = self.pending.firstIndex(where: { $0.id == id }) {
            self.pending[index].promise?.fail(RateLimitStoreError.timeout)
            self.pending[index].promise = nil
            self.pending[index].timeout = nil
        }
        if let oldest = self.pending.first, NIODeadline.now() - oldest.sentAt > self.stallLimit {
            self.fail(context: context, with: .timeout.with(detail: "connection stalled"))
        }
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
        while let entry = self.pending.popFirst() {
            entry.timeout?.cancel()
            entry.promise?.fail(error)
        }
    }
}
