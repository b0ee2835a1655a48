import NIOCore
import NIOPosix
import Testing
import TestSupport

@testable import Gateway

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
}
