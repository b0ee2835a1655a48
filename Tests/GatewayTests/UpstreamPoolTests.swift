import HTTPTypes
import NIOHTTPTypes
import NIOCore
import NIOPosix
import Testing
import TestSupport

@testable import Gateway
@testable import GatewayConfig

/// The upstream connection pool's idle timeout (`proxy.idle_timeout_seconds`).
@Suite("Upstream pool")
struct UpstreamPoolTests {
    @Test("an idle pooled connection is closed after the idle timeout; one picked again in time is kept")
    func idleTimeout() async throws {
        try await withUpstreamTestServer { upstream in
            let pool = try UpstreamPool(
                upstream: UpstreamURL(upstream.baseURL)!, connectTimeout: .seconds(2), maxIdlePerEventLoop: 4, idleTimeout: .seconds(1)
            )
            defer { pool.shutdown() }
            let eventLoop = MultiThreadedEventLoopGroup.singleton.next()

            // Picked again before the timeout: the same connection, still open, its timer cancelled.
            let (first, _) = try await pool.acquire(on: eventLoop)
            pool.release(first)
            try await Task.sleep(for: .milliseconds(100))
            let (again, reused) = try await pool.acquire(on: eventLoop)
            #expect(reused)
            #expect(again === first)
            try await Task.sleep(for: .milliseconds(1200))
            #expect(again.channel.isActive, "a connection in use was closed by an idle timer")

            // Left idle: closed once the timeout has passed, and no longer handed out.
            pool.release(again)
            #expect(pool.idleCount == 1)
            try await Task.sleep(for: .milliseconds(1500))
            #expect(pool.idleCount == 0)
            #expect(!again.channel.isActive)
            let (fresh, freshReused) = try await pool.acquire(on: eventLoop)
            #expect(!freshReused)
            fresh.close()
        }
    }

    /// Answers each request with a 200 and a stray 400 that answers nothing, and keeps the connection open (an
    /// upstream that answered a request's head, then read the rest of it as a request of its own).
    final class StrayAnswerUpstream: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        /// The stray answer in the same write as the 200 (one read for the gateway), or 50 ms later.
        let together: Bool

        init(together: Bool) { self.together = together }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let request = String(buffer: self.unwrapInboundIn(data))
            guard request.hasSuffix("\r\n\r\n") else { return }
            let answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
            let stray = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"
            guard !self.together else {
                context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(string: answer + stray)), promise: nil)
                return
            }
            context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(string: answer)), promise: nil)
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .milliseconds(50)) {
                loopBound.value.writeAndFlush(NIOAny(ByteBuffer(string: stray)), promise: nil)
            }
        }
    }

    @Test(
        "an upstream that sends anything after its answer, in the same read or while the connection waits in the pool: the connection is closed, never lent out",
        arguments: [true, false]
    )
    func strayBytesWhilePooled(together: Bool) async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(StrayAnswerUpstream(together: together)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { server.close(promise: nil) }
        let port = try #require(server.localAddress?.port)
        let pool = try UpstreamPool(
            upstream: UpstreamURL("http://127.0.0.1:\(port)")!, connectTimeout: .seconds(2), maxIdlePerEventLoop: 4, idleTimeout: .seconds(6)
        )
        defer { pool.shutdown() }
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()

        let (connection, _) = try await pool.acquire(on: eventLoop)
        var head = HTTPRequest(method: .get, scheme: nil, authority: "127.0.0.1", path: "/")
        head.headerFields[.contentLength] = "0"
        try await connection.outbound.write(contentsOf: [.head(head), .end(nil)])
        var status: Int?
        reading: while let part = try await connection.next() {
            switch part {
            case .head(let response): status = response.status.code
            case .body: continue
            case .end: break reading
            }
        }
        #expect(status == 200)
        // Released clean. The stray answer arrives with the answer (SwiftNIO's decoder finds an answer no request
        // asked for), or after it, while the connection waits in the pool (or, on a busy machine, in the same read
        // as the answer, or before it was put back): every way, it closes. (Bounded: a connection that stayed open
        // would hold this wait for 5 s, then fail the test.)
        pool.release(connection)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await connection.channel.closeFuture.get() }
            group.addTask {
                try await Task.sleep(for: .seconds(5))
                throw CancellationError()
            }
            try await group.next()
            group.cancelAll()
        }
        #expect(!connection.channel.isActive)
        let (next, reused) = try await pool.acquire(on: eventLoop)
        #expect(!reused, "a connection that was sent a stray answer while pooled was lent out")
        #expect(next !== connection)
        next.close()
    }
}
