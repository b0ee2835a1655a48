import Logging
import NIOCore
import NIOPosix
import Synchronization
import TestSupport
import Testing

@testable import RateLimiting

@Suite("Redis: many checks made in one event-loop tick, against a real redis-server")
struct RedisOneTickTests {
    /// Counts the writes that reach the head of the pipeline: each is one buffer handed to the socket.
    final class WriteCounter: ChannelOutboundHandler, Sendable {
        typealias OutboundIn = ByteBuffer
        let writes = Atomic<Int>(0)

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            self.writes.add(1, ordering: .relaxed)
            context.write(data, promise: promise)
        }
    }

    @Test("50 commands sent in one tick leave in one write and are answered 1 to 50, in order")
    func oneWriteForOneTick() async throws {
        try await withRedisServer { redis async throws in
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let connection = try await RedisConnection.connect(
                to: RedisEndpoint(host: "127.0.0.1", port: redis.port), eventLoopGroup: group,
                deadline: .now() + .seconds(10), stallLimit: .seconds(60), setup: []
            )
            let counter = WriteCounter()
            try await connection.channel.pipeline.addHandler(counter, position: .first).get()
            let loop = connection.channel.eventLoop
            let deadline = NIODeadline.now() + .seconds(30)
            let answered = loop.makePromise(of: [Result<RESPValue, RateLimitStoreError>].self)
            loop.execute {
                var replies: [Result<RESPValue, RateLimitStoreError>] = []
                for _ in 0..<50 {
                    connection.send(RedisCommand("INCR", "counter"), deadline: deadline) { reply in
                        replies.append(reply)
                        if replies.count == 50 { answered.succeed(replies) }
                    }
                }
            }
            let replies = try await answered.futureResult.get()
            #expect(replies == (1...50).map { .success(.integer(Int64($0))) })
            #expect(counter.writes.load(ordering: .relaxed) == 1)
            connection.close()
            try await group.shutdownGracefully()
        }
    }

    @Test("20 checks of one user's bucket made in one tick on the connection's loop: 10 allowed counting down, then 10 refused, in order")
    func checksInOneTick() async throws {
        try await withRedisServer { redis async throws in
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let loop = group.next()
            var configuration = RedisRateLimitStore.Configuration(url: redis.url)
            configuration.timeout = .seconds(10)
            configuration.poolSize = 2
            let store = try RedisRateLimitStore(configuration: configuration, eventLoopGroup: group, logger: Logger(label: "test"))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await store.run() }
                defer { tasks.cancelAll() }
                let clock = ContinuousClock()
                let ready = clock.now + .seconds(10)
                while store.liveConnectionCount == 0 && clock.now < ready {
                    try await Task.sleep(for: .milliseconds(10))
                }
                let limit = RateLimit(name: "story-generation", capacity: 10, period: 3600)
                let decided = loop.makePromise(of: [RateLimitDecision].self)
                loop.execute {
                    var decisions: [RateLimitDecision] = []
                    for _ in 0..<20 {
                        store.check(limit, key: "ann", cost: 1, on: loop) { result in
                            switch result {
                            case .success(let decision):
                                decisions.append(decision)
                                if decisions.count == 20 { decided.succeed(decisions) }
                            case .failure(let error):
                                decided.fail(error)
                            }
                        }
                    }
                }
                let decisions = try await decided.futureResult.get()
                #expect(decisions.map(\.allowed) == Array(repeating: true, count: 10) + Array(repeating: false, count: 10))
                #expect(decisions.prefix(10).map(\.remaining) == Array((0..<10).reversed()))
                let tokens = try #require(Double(try redis.cli("HGET", store.redisKey(for: limit, key: "ann"), "tokens")))
                #expect(tokens < 0.05)  // refill while the test runs is ~0.003 per second
            }
            try await group.shutdownGracefully()
        }
    }
}
