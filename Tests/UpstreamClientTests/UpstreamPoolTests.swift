import HTTPTypes
import HTTPWire
import NIOCore
import NIOPosix
import NIOSSL
import Testing

@testable import UpstreamClient

/// `UpstreamPool` and `UpstreamConnection` against a real upstream on `127.0.0.1`: the idle timeout
/// (`proxy.idle_timeout_seconds`), and bytes an upstream sends that no request asked for.
@Suite("Upstream pool")
struct UpstreamPoolTests {
    static let answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    /// An answer to no request: what an upstream sends when it read the rest of a request as one of its own.
    static let stray = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"

    /// Answers each request with ``answer`` (and ``stray`` in the same write, when `withStray`), keeping the connection.
    final class Answering: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let withStray: Bool

        init(withStray: Bool) { self.withStray = withStray }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard String(buffer: self.unwrapInboundIn(data)).hasSuffix("\r\n\r\n") else { return }
            let bytes = self.withStray ? UpstreamPoolTests.answer + UpstreamPoolTests.stray : UpstreamPoolTests.answer
            context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(string: bytes)), promise: nil)
        }
    }

    /// A local upstream; its accepted connections (its side of them) in the order accepted.
    struct Upstream {
        let channel: any Channel
        let accepted: AsyncStream<any Channel>

        /// - Parameter tls: TLS the upstream speaks (https), or nil.
        static func start(withStray: Bool = false, tls: NIOSSLContext? = nil) async throws -> Upstream {
            let (accepted, continuation) = AsyncStream.makeStream(of: (any Channel).self)
            let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .childChannelInitializer { channel in
                    continuation.yield(channel)
                    return channel.eventLoop.makeCompletedFuture {
                        if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                        try channel.pipeline.syncOperations.addHandler(Answering(withStray: withStray))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            return Upstream(channel: channel, accepted: accepted)
        }

        var port: Int { self.channel.localAddress?.port ?? 0 }

        func pool(idleTimeout: TimeAmount, tls: NIOSSLContext? = nil) -> UpstreamPool {
            UpstreamPool(host: "127.0.0.1", port: self.port, tls: tls, connectTimeout: .seconds(5), maxIdlePerEventLoop: 4, idleTimeout: idleTimeout)
        }
    }

    /// How an exchange on a connection ended.
    enum Outcome: Equatable, Sendable {
        case ended(status: Int, body: String)
        case failed(timedOut: Bool, answered: Bool)
    }

    /// Hears one exchange and completes `promise` with how it ended.
    final class Recorder: UpstreamReceiver {
        let promise: EventLoopPromise<Outcome>
        var status = 0
        var body = ""

        init(_ promise: EventLoopPromise<Outcome>) { self.promise = promise }

        func upstreamHead(_ head: UpstreamHead) { self.status = Int(head.status.code) }
        func upstreamBody(_ buffer: ByteBuffer) { self.body += String(buffer: buffer) }
        func upstreamReadComplete() {}
        func upstreamEnd() { self.promise.succeed(.ended(status: self.status, body: self.body)) }
        func upstreamFailed(timedOut: Bool, answered: Bool) { self.promise.succeed(.failed(timedOut: timedOut, answered: answered)) }
        func upstreamWritable() {}
    }

    /// Sends `GET /` on `connection` (from its loop) and waits for the exchange's end.
    static func exchange(on connection: UpstreamConnection, _ loop: any EventLoop) async throws -> Outcome {
        let promise = loop.makePromise(of: Outcome.self)
        try await loop.submit {
            var head = UpstreamRequestHead(method: .get, path: "/", authority: "127.0.0.1", allocator: ByteBufferAllocator())
            head.end(clientSentLength: false)
            connection.send(head, to: Recorder(promise), timeout: .seconds(30))
        }.get()
        return try await promise.futureResult.get()
    }

    /// Waits until the upstream's side of a connection has closed, for 10 s at most (a connection that stays open
    /// fails the test, rather than holding it).
    static func closed(_ channel: any Channel, _ comment: Comment) async {
        let watchdog = channel.eventLoop.scheduleTask(in: .seconds(10)) {}
        channel.closeFuture.whenComplete { _ in watchdog.cancel() }
        // Cancelled (the future fails) when the channel closed in time.
        let closedInTime = (try? await watchdog.futureResult.get()) == nil
        #expect(closedInTime, comment)
    }

    @Test("an idle pooled connection is closed after the idle timeout; one taken from the pool in time is kept")
    func idleTimeout() async throws {
        let upstream = try await Upstream.start()
        defer { upstream.channel.close(promise: nil) }
        let pool = upstream.pool(idleTimeout: .milliseconds(300))
        defer { pool.shutdown() }
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        var accepted = upstream.accepted.makeAsyncIterator()
        let kept = try await pool.connect(on: loop).get()
        let keptUpstreamSide = try #require(await accepted.next())
        let witness = try await pool.connect(on: loop).get()
        let witnessUpstreamSide = try #require(await accepted.next())

        // Released and taken back in one task on the loop: in time, however slow the machine.
        let taken = try await loop.submit {
            pool.release(kept, on: loop)
            return pool.lease(on: loop)
        }.get()
        #expect(taken === kept)
        // Released after `kept` was: once its idle time has run out, so has the one `kept` had in the pool.
        try await loop.submit { pool.release(witness, on: loop) }.get()
        await Self.closed(witnessUpstreamSide, "an idle connection was not closed after the idle timeout")
        #expect(await pool.idleCount() == 0)
        #expect(try await loop.submit { kept.isActive }.get(), "a connection taken from the pool was closed by its idle timer")
        #expect(try await Self.exchange(on: kept, loop) == .ended(status: 200, body: "ok"))

        // Left idle: closed once the timeout has passed, and never lent out again.
        try await loop.submit { pool.release(kept, on: loop) }.get()
        await Self.closed(keptUpstreamSide, "an idle connection was not closed after the idle timeout")
        #expect(try await loop.submit { pool.lease(on: loop) == nil }.get())
    }

    @Test(
        "an upstream that sends anything after its answer, in the same read or while the connection waits in the pool: the connection is closed, never lent out",
        arguments: [true, false]
    )
    func strayBytes(together: Bool) async throws {
        let upstream = try await Upstream.start(withStray: together)
        defer { upstream.channel.close(promise: nil) }
        let pool = upstream.pool(idleTimeout: .seconds(60))
        defer { pool.shutdown() }
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        var accepted = upstream.accepted.makeAsyncIterator()
        let connection = try await pool.connect(on: loop).get()
        let upstreamSide = try #require(await accepted.next())

        #expect(try await Self.exchange(on: connection, loop) == .ended(status: 200, body: "ok"))
        try await loop.submit { pool.release(connection, on: loop) }.get()
        if !together {
            // The connection waits in the pool; then the stray answer comes.
            #expect(await pool.idleCount() == 1)
            try await upstreamSide.writeAndFlush(ByteBuffer(string: Self.stray)).get()
        }
        await Self.closed(upstreamSide, "a connection that was sent bytes after its answer stayed open")
        #expect(try await loop.submit { pool.lease(on: loop) == nil }.get(), "a connection that was sent a stray answer was lent out")
    }
}
