import GatewayConfig
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

    /// TLS for an https upstream, HTTP/1.1 in HTTP types, then the guard against answers outside an exchange.
    static func addHTTPHandlers(to channel: any Channel, upstream: UpstreamURL, tls: NIOSSLContext?) throws {
        try Self.addTLSHandler(to: channel, upstream: upstream, tls: tls)
        let state = UpstreamExchangeGuard.State()
        try channel.pipeline.syncOperations.addHandler(UpstreamExchangeGuard.Bytes(state))
        // No outbound header validation: HTTPFields are valid by construction.
        try channel.pipeline.syncOperations.addHTTPClientHandlers(enableOutboundHeaderValidation: false)
        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPClientCodec())
        try channel.pipeline.syncOperations.addHandler(UpstreamExchangeGuard.Exchange(state))
    }
}

/// Closes an upstream connection that sends anything between exchanges: after an answer's end and before the next
/// request's head. Such bytes answer no request (an upstream that read part of a request as one of its own — as
/// every upstream did with a body sent unframed, before the forwarder wrote out every body's framing — answers it
/// too); read by the next exchange, they would pass for its answer. The direct path's connection refuses bytes
/// outside an exchange in the same way. An answer that arrives after the next request was sent cannot be told
/// from that request's own: the guard narrows the window, it cannot close it (nor can any HTTP/1.1 proxy).
///
/// Two handlers share one state, both on the channel's event loop (no pool bookkeeping races with them):
/// ``Exchange``, after the HTTP codec, follows requests and answers (interim 1xx answers are part of their exchange)
/// and refuses a part decoded outside an exchange, and any error from the codec (an answer read in the same read as
/// the one before it, which no request asked for, is SwiftNIO's `unsolicitedResponse`); ``Bytes``, before the codec,
/// refuses bytes that arrive outside one (SwiftNIO's decoder may hold an answer that no request is waiting for, so it
/// would never reach ``Exchange``).
enum UpstreamExchangeGuard {
    /// Loop-confined (hence the unchecked `Sendable`).
    final class State: @unchecked Sendable {
        /// Between a request's head and its final answer's end.
        var inExchange = false
        /// The answer being read is an interim one (1xx): its end does not end the exchange.
        var interim = false
    }

    final class Bytes: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        let state: State

        init(_ state: State) { self.state = state }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard self.state.inExchange else {
                context.close(promise: nil)
                return
            }
            context.fireChannelRead(data)
        }
    }

    final class Exchange: ChannelDuplexHandler {
        typealias InboundIn = HTTPResponsePart
        typealias InboundOut = HTTPResponsePart
        typealias OutboundIn = HTTPRequestPart
        typealias OutboundOut = HTTPRequestPart
        let state: State

        init(_ state: State) { self.state = state }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .head = self.unwrapOutboundIn(data) { self.state.inExchange = true }
            context.write(data, promise: promise)
        }

        /// Any error from the codec (bytes that are not an answer, an answer no request asked for) ends the
        /// connection, whoever is reading it: the exchange in progress gets the error, then the close.
        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.fireErrorCaught(error)
            context.close(promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard self.state.inExchange else {
                context.close(promise: nil)
                return
            }
            switch self.unwrapInboundIn(data) {
            case .head(let head): self.state.interim = head.status.kind == .informational
            case .body: break
            case .end: if !self.state.interim { self.state.inExchange = false }
            }
            context.fireChannelRead(data)
        }
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
