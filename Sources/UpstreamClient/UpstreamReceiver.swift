package import HTTPWire
package import NIOCore

/// What one exchange on an ``UpstreamConnection`` hears, on the connection's event loop.
package protocol UpstreamReceiver: AnyObject {
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
