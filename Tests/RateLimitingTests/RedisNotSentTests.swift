import NIOCore
import NIOPosix
import TestSupport
import Testing

@testable import RateLimiting

@Suite("Redis connection: commands that never left")
struct RedisNotSentTests {
    /// A server that accepts and never reads: the loopback socket buffers fill, then SwiftNIO queues the rest.
    @Test("a connection closed for stalling fails the commands still in SwiftNIO's queue as not sent, the others as sent", .timeLimit(.minutes(1)))
    func stalledConnection() async throws {
        let errors = try await withLocalRawServer(.neverRead) { server in
            let connection = try await RedisConnection.connect(
                to: RedisEndpoint(host: "127.0.0.1", port: server.port), eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
                deadline: .now() + .seconds(5), stallLimit: .milliseconds(50), setup: []
            )
            // 400 commands of 64 KB, 25 MB: more than the two sockets' buffers hold. Every deadline is 300 ms away,
            // past the 50 ms stall limit, so the first one to expire closes the connection.
            let command = RedisCommand("SET", "key", String(repeating: "x", count: 64 * 1024))
            let deadline = NIODeadline.now() + .milliseconds(300)
            let errors = await withTaskGroup(of: RateLimitStoreError?.self) { group in
                for _ in 0..<400 {
                    group.addTask {
                        do throws(RateLimitStoreError) {
                            _ = try await connection.send(command, deadline: deadline)
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                return await group.reduce(into: [RateLimitStoreError?]()) { $0.append($1) }
            }
            try await connection.closeFuture.get()
            return errors
        }
        #expect(errors.allSatisfy { $0 != nil }, "nothing answers")
        let notSent = errors.compactMap { $0 }.filter(\.notSent)
        let sent = errors.compactMap { $0 }.filter { !$0.notSent }
        #expect(!notSent.isEmpty, "some commands never left SwiftNIO's queue")
        #expect(!sent.isEmpty, "some commands reached the socket")
        #expect(notSent.allSatisfy { $0 == .unavailable })
        #expect(sent.allSatisfy { $0 == .timeout })
    }
}
