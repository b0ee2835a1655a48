import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOPosix
import NIOSSL

/// What every upstream connection starts with, on either path.
extension UpstreamConnection {
    static func bootstrap(on eventLoop: any EventLoop, timeout: TimeAmount) -> ClientBootstrap {
        ClientBootstrap(group: eventLoop).connectTimeout(timeout).channelOption(.socketOption(.tcp_nodelay), value: 1)
    }

    /// TLS for an https upstream, its certificate verified against the system roots.
    static func addTLSHandler(to channel: any Channel, upstream: UpstreamURL, tls: NIOSSLContext?) throws {
        if let tls {
            let serverHostname = upstream.host.contains(":") ? nil : upstream.host
            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: serverHostname))
        }
    }

    /// TLS for an https upstream, then HTTP/1.1 in HTTP types.
    static func addHTTPHandlers(to channel: any Channel, upstream: UpstreamURL, tls: NIOSSLContext?) throws {
        try Self.addTLSHandler(to: channel, upstream: upstream, tls: tls)
        // No outbound header validation: HTTPFields are valid by construction.
        try channel.pipeline.syncOperations.addHTTPClientHandlers(enableOutboundHeaderValidation: false)
        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPClientCodec())
    }
}

/// One HTTP/1.1 keep-alive connection to an upstream, on one event loop, carrying one exchange at a time.
///
/// A long-lived task owns the channel (`executeThenClose`) and lends its inbound iterator and outbound writer to
/// the exchanges the pool hands the connection to; the pool guarantees one exchange at a time, which is what makes
/// the unchecked `Sendable` sound.
final class UpstreamConnection: @unchecked Sendable {
    typealias AsyncChannel = NIOAsyncChannel<HTTPResponsePart, HTTPRequestPart>

    let channel: any Channel
    private var inbound: NIOAsyncChannelInboundStream<HTTPResponsePart>.AsyncIterator
    let outbound: NIOAsyncChannelOutboundWriter<HTTPRequestPart>
    /// Set when the connection must not carry another exchange (`Connection: close`, an unfinished exchange).
    private(set) var isReusable = true

    private init(
        channel: any Channel, inbound: NIOAsyncChannelInboundStream<HTTPResponsePart>.AsyncIterator,
        outbound: NIOAsyncChannelOutboundWriter<HTTPRequestPart>
    ) {
        self.channel = channel
        self.inbound = inbound
        self.outbound = outbound
    }

    /// The next response part; nil once the upstream has closed the connection.
    func next() async throws -> HTTPResponsePart? {
        try await self.inbound.next()
    }

    func markNotReusable() {
        self.isReusable = false
    }

    /// Closes the connection (whatever is waiting on it fails).
    func close() {
        self.isReusable = false
        self.channel.close(promise: nil)
    }

    /// Connects on `eventLoop` (TLS for https, verifying the upstream's certificate against the system roots).
    static func connect(
        to upstream: UpstreamURL, on eventLoop: any EventLoop, timeout: TimeAmount, tls: NIOSSLContext?
    ) async throws -> UpstreamConnection {
        let asyncChannel = try await Self.bootstrap(on: eventLoop, timeout: timeout)
            .connect(host: upstream.host, port: upstream.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.addHTTPHandlers(to: channel, upstream: upstream, tls: tls)
                    return try AsyncChannel(wrappingChannelSynchronously: channel)
                }
            }
        return try await withCheckedThrowingContinuation { continuation in
            // The owner: lends the channel's streams out, and closes the channel once nobody can use it.
            Task(executorPreference: EventLoopTaskExecutor(eventLoop)) {
                var lent = false
                try? await asyncChannel.executeThenClose { inbound, outbound in
                    let connection = UpstreamConnection(
                        channel: asyncChannel.channel, inbound: inbound.makeAsyncIterator(), outbound: outbound
                    )
                    lent = true
                    continuation.resume(returning: connection)
                    try await asyncChannel.channel.closeFuture.get()
                }
                if !lent { continuation.resume(throwing: ChannelError.ioOnClosedChannel) }
            }
        }
    }
}
