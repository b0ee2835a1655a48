import NIOCore
import NIOEmbedded
import Testing
import TestSupport

@testable import RateLimiting

@Suite("Redis command handler: one write per loop tick, replies in order, commands that never left")
struct RedisCommandHandlerTests {
    typealias Reply = Result<RESPValue, RateLimitStoreError>

    /// The replies a test's requests got, in the order they came.
    final class Replies {
        var values: [Reply] = []
    }

    let deadline = NIODeadline.now() + .seconds(600)

    @Test("commands enqueued in one tick leave in one write, after the tick; replies split across reads answer them in order")
    func oneWritePerTick() throws {
        let handler = RedisCommandHandler(stallLimit: .seconds(600))
        let channel = EmbeddedChannel(handler: handler)
        let replies = Replies()
        for index in 0..<3 {
            handler.enqueue(RedisCommand("GET", "k\(index)"), asking: false, deadline: self.deadline) { replies.values.append($0) }
        }
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil, "nothing leaves before the tick's work is over")
        channel.embeddedEventLoop.run()
        let written = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(String(buffer: written) == "*2\r\n$3\r\nGET\r\n$2\r\nk0\r\n*2\r\n$3\r\nGET\r\n$2\r\nk1\r\n*2\r\n$3\r\nGET\r\n$2\r\nk2\r\n")
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil, "one write")

        for byte in ":1\r\n$5\r\nhello\r\n*2\r\n:7\r\n$-1\r\n".utf8 {
            try channel.writeInbound(ByteBuffer(bytes: [byte]))
        }
        #expect(replies.values == [.success(.integer(1)), .success(.bulkString(ByteBuffer(string: "hello"))), .success(.array([.integer(7), .bulkString(nil)]))])
        _ = try? channel.finish()
    }

    @Test("ASKING goes right before its command, in the same write, and its +OK answers nobody")
    func askingPrecedesItsCommand() throws {
        let handler = RedisCommandHandler(stallLimit: .seconds(600))
        let channel = EmbeddedChannel(handler: handler)
        let replies = Replies()
        handler.enqueue(RedisCommand("GET", "a"), asking: true, deadline: self.deadline) { replies.values.append($0) }
        channel.embeddedEventLoop.run()
        let written = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(String(buffer: written) == "*1\r\n$6\r\nASKING\r\n*2\r\n$3\r\nGET\r\n$1\r\na\r\n")
        try channel.writeInbound(ByteBuffer(string: "+OK\r\n:5\r\n"))
        #expect(replies.values == [.success(.integer(5))])
        _ = try? channel.finish()
    }

    @Test("on close: a written command fails as maybe sent, one still in the outbound buffer as not sent, a later one at once as not sent")
    func notSentOnlyWhenKnown() throws {
        let handler = RedisCommandHandler(stallLimit: .seconds(600))
        let channel = EmbeddedChannel(handler: handler)
        let written = Replies()
        let unwritten = Replies()
        let late = Replies()
        handler.enqueue(RedisCommand("INCR", "a"), asking: false, deadline: self.deadline) { written.values.append($0) }
        channel.embeddedEventLoop.run()
        handler.enqueue(RedisCommand("INCR", "b"), asking: false, deadline: self.deadline) { unwritten.values.append($0) }
        channel.close(promise: nil)
        channel.embeddedEventLoop.run()
        handler.enqueue(RedisCommand("INCR", "c"), asking: false, deadline: self.deadline) { late.values.append($0) }

        for (replies, notSent) in [(written, false), (unwritten, true), (late, true)] {
            #expect(replies.values.count == 1)
            guard case .failure(let error) = replies.values.first else {
                Issue.record("expected a failure")
                continue
            }
            #expect(error == .unavailable)
            #expect(error.notSent == notSent)
        }
    }

    @Test("a reply nobody asked for closes the connection and fails what is pending")
    func replyWithoutARequest() throws {
        let handler = RedisCommandHandler(stallLimit: .seconds(600))
        let channel = EmbeddedChannel(handler: handler)
        try channel.writeInbound(ByteBuffer(string: ":1\r\n"))
        #expect(!channel.isActive)
    }

    @Test("the token bucket check written straight as RESP is the EVALSHA command, byte for byte")
    func checkEncodesAsTheCommand() {
        let limits = [
            (RateLimit.storyGeneration, 1.0), (RateLimit(name: "api", capacity: 1_000_000, period: 60, shadow: true), 2.5),
            (RateLimit(name: "half", capacity: 0.5, period: 1e16), 0.25),
        ]
        for (limit, cost) in limits {
            var direct = ByteBuffer()
            TokenBucketScript.Check(limit: limit, tag: "0123456789abcdef", cost: cost).encode(into: &direct)
            var command = ByteBuffer()
            TokenBucketScript.evalSHA(key: TokenBucketScript.redisKey(limit: limit, tag: "0123456789abcdef"), limit: limit, cost: cost)
                .encode(into: &command)
            #expect(direct == command)
        }
    }

    @Test("RESP integers are read as Int64(String) reads them", arguments: [
        "0", "7", "-42", "+5", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "-9223372036854775809", "", "-", "+", "1a", " 1", "99999999999999999999",
    ])
    func integers(text: String) throws {
        var buffer = ByteBuffer(string: ":\(text)\r\n")
        if let expected = Int64(text) {
            #expect(try RESPDecoder.parse(&buffer) == .integer(expected))
        } else {
            #expect(throws: RateLimitStoreError.protocolError) { try RESPDecoder.parse(&buffer) }
        }
    }

    @Test("the flat-array fast path reads what the general parser reads: every prefix and one-byte change of script replies")
    func flatArraysReadAsTheGeneralParserReads() throws {
        let replies = [
            "*5\r\n:1\r\n:0\r\n:999999\r\n$1\r\n0\r\n$22\r\n6.0000000000000002e-05\r\n",
            "*5\r\n:0\r\n:1\r\n:-3\r\n$3\r\n360\r\n$4\r\n0.5\r\n:7\r\n",
            "*2\r\n:+12\r\n$0\r\n\r\n", "*0\r\n", "*-1\r\n", "*1\r\n$-1\r\n", "*1\r\n*1\r\n:1\r\n",
            "*1\r\n:123456789012345678\r\n", "*1\r\n:1234567890123456789\r\n", "*1\r\n:-9223372036854775808\r\n",
            "*2\r\n$4\r\na\r\nb\r\n+OK\r\n", "*17\r\n" + String(repeating: ":1\r\n", count: 17),
        ]
        let alphabet = Array("*$:+-0159\r\nab".utf8)
        var generator = SplitMix64(seed: 20)  // seeded: a failure replays
        for reply in replies {
            let bytes = Array(reply.utf8)
            var cases = (0...bytes.count).map { Array(bytes.prefix($0)) }
            for _ in 0..<200 {
                var changed = bytes
                changed[Int.random(in: 0..<changed.count, using: &generator)] = alphabet.randomElement(using: &generator)!
                cases.append(changed)
            }
            for input in cases {
                var fast = ByteBuffer(bytes: input)
                var general = ByteBuffer(bytes: input)
                let fastResult = Result { () throws(RateLimitStoreError) in try RESPDecoder.parse(&fast) }
                let generalResult = Result { () throws(RateLimitStoreError) in try RESPDecoder.parseAnyValue(&general) }
                #expect(fastResult == generalResult, "\(String(decoding: input, as: UTF8.self).debugDescription)")
                #expect(fast.readerIndex == general.readerIndex)
            }
        }
    }

    @Test("script arguments: whole numbers without a fraction, others as Swift prints them")
    func argumentText() {
        #expect(TokenBucketScript.argument(60) == "60")
        #expect(TokenBucketScript.argument(1_000_000) == "1000000")
        #expect(TokenBucketScript.argument(0.5) == "0.5")
        #expect(TokenBucketScript.argument(2.25) == "2.25")
        #expect(TokenBucketScript.argument(1e16) == "1e+16")
    }

    @Test("RESP lengths in decimal", arguments: [0, 7, 9, 10, 99, 100, 12_345, 1_000_000])
    func decimals(value: Int) {
        var buffer = ByteBuffer()
        buffer.writeRESPDecimal(value)
        #expect(String(buffer: buffer) == String(value))
    }
}

@Suite("Redis key tags: worked out once per key, bounded")
struct KeyTagCacheTests {
    final class Calls: @unchecked Sendable {
        var count = 0
    }

    @Test func cachesAndStartsAgainWhenFull() {
        let calls = Calls()
        let cache = KeyTagCache(capacity: 2) { key in
            calls.count += 1
            return "tag-" + key
        }
        #expect(cache.tag(for: "a") == "tag-a")
        #expect(cache.tag(for: "a") == "tag-a")
        #expect(cache.tag(for: "b") == "tag-b")
        #expect(calls.count == 2)
        #expect(cache.count == 2)
        #expect(cache.tag(for: "c") == "tag-c")
        #expect(cache.count == 1)
        #expect(calls.count == 3)
    }
}
