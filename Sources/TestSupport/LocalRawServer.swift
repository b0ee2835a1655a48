#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import NIOCore
import NIOPosix
import Synchronization

/// A TCP server on `127.0.0.1` and an ephemeral port that misbehaves on purpose, for fault tests:
/// it closes, resets or answers garbage instead of speaking HTTP.
///
/// Prefer the scoped ``withLocalRawServer(_:_:)``, which always shuts the server down.
public final class LocalRawServer: LocalTestServer {
    /// What the server does with each connection.
    public enum Behavior: Sendable {
        /// Closes each connection as soon as it is accepted, reading nothing.
        case closeOnAccept
        /// Reads the first bytes of the request, then closes without answering.
        case closeAfterRequest
        /// Reads the first bytes of the request, then resets the connection (TCP RST).
        case resetAfterRequest
        /// Reads the first bytes of the request, sends `bytes`, then closes.
        case reply([UInt8])
        /// Accepts each connection and never reads from it: the peer's writes fill the socket buffers, then wait.
        /// The connections close when the server shuts down.
        case neverRead
        /// Answers the first read on each connection with `first` and keeps the connection; answers every later read
        /// with `then` and closes it. Each read counts as a request (``readCount``).
        case firstThen(first: [UInt8], then: [UInt8])
    }

    /// The port the server listens on.
    public let port: Int
    private let channel: any Channel
    /// The connections a `neverRead` server holds open (it never reads, so it would never see them close).
    fileprivate final class Held: Sendable {
        let channels = Mutex<[any Channel]>([])
        let reads = Atomic<Int>(0)
    }

    /// Reads the server has had, on all its connections (a request each, for a client that sends one per write).
    public var readCount: Int { self.held.reads.load(ordering: .relaxed) }

    private let held: Held

    private init(port: Int, channel: any Channel, held: Held) {
        self.port = port
        self.channel = channel
        self.held = held
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(self.port)" }

    /// Starts a server behaving as `behavior`; returns once it listens.
    public static func start(_ behavior: Behavior) async throws -> LocalRawServer {
        let held = Held()
        let neverRead = if case .neverRead = behavior { true } else { false }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.autoRead, value: !neverRead)
            .childChannelInitializer { channel in
                if neverRead { held.channels.withLock { $0.append(channel) } }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(MisbehavingHandler(behavior: behavior, held: held))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw ChannelError.unknownLocalAddress
        }
        return LocalRawServer(port: port, channel: channel, held: held)
    }

    /// Stops listening. Accepted connections are closed by their own behavior, or here (`neverRead`).
    public func shutdown() async {
        try? await self.channel.close()
        for connection in self.held.channels.withLock({ $0 }) {
            try? await connection.close()
        }
    }
}

/// Does a ``LocalRawServer/Behavior`` to one connection.
private final class MisbehavingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let behavior: LocalRawServer.Behavior
    private let held: LocalRawServer.Held
    private var acted = false

    init(behavior: LocalRawServer.Behavior, held: LocalRawServer.Held) {
        self.behavior = behavior
        self.held = held
    }

    func channelActive(context: ChannelHandlerContext) {
        if case .closeOnAccept = self.behavior {
            self.acted = true
            context.close(promise: nil)
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.held.reads.add(1, ordering: .relaxed)
        if case .firstThen(let first, let then) = self.behavior {
            let channel = context.channel
            if self.acted {
                context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(bytes: then))).whenComplete { _ in channel.close(promise: nil) }
            } else {
                self.acted = true
                context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(bytes: first)), promise: nil)
            }
            return
        }
        guard !self.acted else { return }
        self.acted = true
        switch self.behavior {
        case .closeOnAccept, .closeAfterRequest:
            context.close(promise: nil)
        case .resetAfterRequest:
            // SO_LINGER on with a zero timeout turns close() into a reset.
            let channel = context.channel
            if let provider = channel as? any SocketOptionProvider {
                provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
            } else {
                channel.close(promise: nil)
            }
        case .reply(let bytes):
            let channel = context.channel
            context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(bytes: bytes))).whenComplete { _ in
                channel.close(promise: nil)
            }
        case .neverRead, .firstThen:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
