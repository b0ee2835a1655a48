import HTTPWire
import NIOCore

/// The rules of one client connection, as a value: which request head is due and by when, the one request under way
/// and its body, keep-alive and close, half-close, quiesce, and when to read. ``ConnectionHandler`` feeds it the
/// connection's events and does what it says; it touches no channel, so its rules are tested on their own.
///
/// - A head must be complete within the header timeout of its first byte (or of the connection opening); an idle
///   connection closes after the idle timeout (Envoy's `request_headers_timeout` and `idle_timeout`).
/// - One request at a time: bytes after it (pipelined requests) wait, and reading stops once `maxPending` of them do.
/// - A body that streams after its head is read as the request's exchange asks for it; more of it is due within the
///   body timeout while the exchange waits for it.
/// - A body not read to its end (refused, abandoned, broken) ends the connection after the answer, as does
///   `Connection: close`, a graceful shutdown, and a client that has half-closed once all it sent is answered.
struct ConnectionStateMachine {
    struct Limits {
        var maxHeadBytes: Int
        var maxFields: Int
        var headerTimeout: TimeAmount
        var idleTimeout: TimeAmount
        var bodyTimeout: TimeAmount
    }

    /// What the connection does next.
    enum Next {
        /// Nothing until another event.
        case wait
        /// A request to start: its head, and its body when it came whole with the head (`streamed`: it follows, as
        /// the exchange asks for it).
        case start(RequestHead, body: ByteBuffer?, streamed: Bool)
        /// A head that cannot be read: answer it, and close.
        case refuse(GatewayError)
        /// Part of the body under way, for the exchange.
        case body(ByteBuffer)
        case bodyEnd
        case bodyFailed(RequestBodyFailure)
        /// Close the connection now.
        case close
    }

    private enum State {
        /// Waiting for a request head.
        case idle
        /// A request under way, until its exchange is finished.
        case busy(Body)
        /// Nothing more is read or answered.
        case closing
        /// The answer is out and the sending side shut: what the client still sends is read and dropped until it
        /// closes its side or `lingerTimeout` passes. Closed at once, a socket with unread bytes sends a reset, which
        /// can destroy the answer before the client reads it (nginx's `lingering_close`).
        case lingering
    }

    /// What to do once an answer's end is written.
    enum AfterAnswer {
        case keepOpen
        case close
        /// Shut the sending side; close when the client closes its own, or at the deadline.
        case linger
    }

    private enum Body {
        /// None, or read to its end.
        case done
        /// Streaming: read as the exchange asks (`wanted`); `continueDue` until `100 Continue` has been sent.
        case streaming(RequestBodyDecoder, wanted: Bool, continueDue: Bool)
        /// Not to be read to its end: the connection closes after the answer.
        case unread
    }

    let limits: Limits
    private var state = State.idle
    /// Bytes read and not yet taken.
    private var pending: ByteBuffer?
    private var inputClosed = false
    private var quiescing = false
    /// A read was asked for while too many bytes waited.
    private var readHeld = false
    /// When the connection closes (or a streamed body fails) unless something happens first.
    private(set) var deadline: NIODeadline?

    /// How long a connection lingers after its last answer for the client to stop sending.
    static let lingerTimeout = TimeAmount.seconds(2)

    /// Bytes that may wait while a request is under way before reading stops.
    static let maxPending = 64 * 1024
    /// The largest body taken whole with its head, when it came with it; a larger one streams.
    static let maxInlineBody = 16 * 1024
    private static let noBytes = ByteBuffer()

    init(limits: Limits) {
        self.limits = limits
    }

    // MARK: Events

    mutating func channelActive(now: NIODeadline) {
        self.deadline = now + self.limits.headerTimeout
    }

    mutating func bytesRead(_ buffer: ByteBuffer, now: NIODeadline) {
        // Once closing, the socket is drained: nothing more is taken.
        switch self.state {
        case .closing, .lingering: return
        case .idle, .busy: break
        }
        if var pending = self.pending, pending.readableBytes > 0 {
            self.pending = nil
            var buffer = buffer
            pending.writeBuffer(&buffer)
            self.pending = pending
        } else {
            self.pending = buffer
            // The first byte of a request: its head is due within the header timeout.
            if case .idle = self.state { self.deadline = now + self.limits.headerTimeout }
        }
    }

    /// The client has closed its sending side (it may still read the answers): true when the connection closes now
    /// (it was lingering for this).
    mutating func clientHalfClosed() -> Bool {
        self.inputClosed = true
        guard case .lingering = self.state else { return false }
        self.state = .closing
        self.deadline = nil
        return true
    }

    /// A graceful shutdown: true when the connection closes now (nothing under way); otherwise after the answer.
    mutating func quiesce() -> Bool {
        self.quiescing = true
        if case .lingering = self.state {
            self.state = .closing
            return true
        }
        guard case .idle = self.state else { return false }
        self.state = .closing
        return true
    }

    /// A read is asked for: true to read now; false while too many bytes wait (the read is held until they are taken).
    mutating func readRequested() -> Bool {
        if (self.pending?.readableBytes ?? 0) >= Self.maxPending {
            self.readHeld = true
            return false
        }
        return true
    }

    /// True once when a read held back may go ahead.
    mutating func releaseHeldRead() -> Bool {
        guard self.readHeld, (self.pending?.readableBytes ?? 0) < Self.maxPending else { return false }
        self.readHeld = false
        return true
    }

    /// The exchange wants the body's parts now, or no more for a while: true when `100 Continue` is to be sent first.
    mutating func bodyWanted(_ wanted: Bool, now: NIODeadline) -> Bool {
        guard case .busy(.streaming(let decoder, _, let continueDue)) = self.state else { return false }
        self.state = .busy(.streaming(decoder, wanted: wanted, continueDue: continueDue && !wanted))
        // Waiting for the client is bounded while the exchange waits for it; not while the exchange is behind.
        self.deadline = wanted ? now + self.limits.bodyTimeout : nil
        return continueDue && wanted
    }

    /// An answer's head is about to be written for the request under way: true when it must say `Connection: close`
    /// because the request's body will not be read to its end.
    mutating func answerStarts() -> Bool {
        guard case .busy(let body) = self.state else { return false }
        switch body {
        case .done:
            return false
        case .streaming, .unread:
            return true
        }
    }

    /// The answer's end is written: whether the connection stays open for the next request, or closes once the
    /// answer is out (the request or the answer said so, or a shutdown is under way) — lingering when the client may
    /// still be sending (a body not read to its end, or requests after this one).
    mutating func answerEnds(closes: Bool, now: NIODeadline) -> AfterAnswer {
        guard closes || self.quiescing else { return .keepOpen }
        var unread = (self.pending?.readableBytes ?? 0) > 0
        if case .busy(let body) = self.state, case .done = body {} else { unread = true }
        self.pending = nil
        guard unread, !self.inputClosed else {
            self.state = .closing
            self.deadline = nil
            return .close
        }
        self.state = .lingering
        self.deadline = now + Self.lingerTimeout
        return .linger
    }

    /// The request's exchange is finished: the next request may start. True when the connection closes now instead.
    mutating func requestFinished(now: NIODeadline) -> Bool {
        switch self.state {
        case .busy(.done):
            self.state = .idle
            // The next head is due from now if its bytes are here already; otherwise the connection idles.
            self.deadline = now + (self.pending == nil ? self.limits.idleTimeout : self.limits.headerTimeout)
            return false
        case .busy(.streaming), .busy(.unread):
            // Its answer said `Connection: close` (``answerStarts()``): nothing after it can be framed.
            self.state = .closing
            self.pending = nil
            self.deadline = nil
            return true
        case .idle, .closing, .lingering:
            return false
        }
    }

    /// The deadline has passed.
    mutating func timerFired(now: NIODeadline) -> Next {
        guard let deadline = self.deadline, deadline <= now else { return .wait }
        self.deadline = nil
        if case .busy(.streaming(_, wanted: true, _)) = self.state {
            // The client stopped sending its body: the exchange answers 408 if it can, then the connection closes.
            self.state = .busy(.unread)
            self.pending = nil
            return .bodyFailed(.timeout)
        }
        if case .busy = self.state { return .wait }
        self.state = .closing
        return .close
    }

    /// The connection is to close at once (an answer broken off, an error).
    mutating func closeNow() {
        self.state = .closing
        self.pending = nil
        self.deadline = nil
    }

    // MARK: What next

    /// What to do with the bytes waiting, in the current state.
    mutating func next(now: NIODeadline) -> Next {
        switch self.state {
        case .closing, .lingering:
            return .wait
        case .idle:
            return self.nextRequest(now: now)
        case .busy(.streaming(var decoder, wanted: true, _)):
            var bytes = self.pending ?? Self.noBytes
            self.pending = nil
            let part: RequestBodyDecoder.Part?
            do {
                part = try decoder.next(&bytes)
            } catch {
                self.state = .busy(.unread)
                self.deadline = nil
                return .bodyFailed(.malformed(reason: error.reason))
            }
            self.pending = bytes.readableBytes > 0 ? bytes : nil
            switch part {
            case .data(let buffer):
                self.state = .busy(.streaming(decoder, wanted: true, continueDue: false))
                return .body(buffer)
            case .end:
                self.state = .busy(.done)
                self.deadline = nil
                return .bodyEnd
            case nil:
                guard !self.inputClosed else {
                    self.state = .busy(.unread)
                    self.deadline = nil
                    return .bodyFailed(.cutOff)
                }
                self.state = .busy(.streaming(decoder, wanted: true, continueDue: false))
                self.deadline = now + self.limits.bodyTimeout
                return .wait
            }
        case .busy:
            return .wait
        }
    }

    private mutating func nextRequest(now: NIODeadline) -> Next {
        guard var bytes = self.pending, bytes.readableBytes > 0 else {
            self.pending = nil
            guard self.inputClosed || self.quiescing else { return .wait }
            // The client has sent all it will and everything is answered, or the gateway is stopping.
            self.state = .closing
            self.deadline = nil
            return .close
        }
        let outcome = bytes.withUnsafeReadableBytes {
            RawRequestHead.parse($0, maxBytes: self.limits.maxHeadBytes, maxFields: self.limits.maxFields)
        }
        let head: RequestHead
        switch outcome {
        case .complete(let complete):
            head = complete
        case .incomplete:
            guard self.inputClosed else { return .wait }
            // The client closed its side in the middle of a head: nothing to answer.
            self.state = .closing
            self.deadline = nil
            return .close
        case .invalid(let error):
            self.state = .closing
            self.pending = nil
            self.deadline = nil
            return .refuse(error.answer)
        }
        var body: ByteBuffer?
        var taken = head.length
        var streamed = false
        switch head.body {
        case .none:
            break
        case .length(let length) where length <= Self.maxInlineBody && !head.expectsContinue && bytes.readableBytes >= head.length + length:
            body = bytes.getSlice(at: bytes.readerIndex + head.length, length: length)
            taken += length
        case .length, .chunked:
            streamed = true
        }
        bytes.moveReaderIndex(forwardBy: taken)
        self.pending = bytes.readableBytes > 0 ? bytes : nil
        if streamed {
            let decoder = RequestBodyDecoder(head.body, maxTrailerBytes: self.limits.maxHeadBytes)
            self.state = .busy(.streaming(decoder, wanted: false, continueDue: head.expectsContinue))
        } else {
            self.state = .busy(.done)
        }
        // No deadline while the exchange works (its own timeouts apply); the body's runs while it is awaited.
        self.deadline = nil
        return .start(head, body: body, streamed: streamed)
    }
}
