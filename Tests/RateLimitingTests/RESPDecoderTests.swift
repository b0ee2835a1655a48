import NIOCore
import Testing

@testable import RateLimiting

@Suite("RESP: decoder, command encoding, endpoint URLs, script SHA-1")
struct RESPTests {
    private func parse(_ text: String) throws -> (RESPValue?, Int) {
        var buffer = ByteBuffer(string: text)
        let value = try RESPDecoder.parse(&buffer)
        return (value, buffer.readableBytes)
    }

    @Test func decodesEveryType() throws {
        #expect(try parse("+OK\r\n").0 == .simpleString("OK"))
        #expect(try parse("-NOSCRIPT No matching script\r\n").0 == .error("NOSCRIPT No matching script"))
        #expect(try parse(":-42\r\n").0 == .integer(-42))
        #expect(try parse("$5\r\nhello\r\n").0 == .bulkString(ByteBuffer(string: "hello")))
        #expect(try parse("$-1\r\n").0 == .bulkString(nil))
        #expect(try parse("*-1\r\n").0 == .array(nil))
        #expect(try parse("*0\r\n").0 == .array([]))
        let nested = try parse("*3\r\n:1\r\n$3\r\n0.5\r\n*1\r\n+x\r\n")
        #expect(nested.0 == .array([.integer(1), .bulkString(ByteBuffer(string: "0.5")), .array([.simpleString("x")])]))
        #expect(nested.1 == 0)
    }

    @Test func waitsForACompleteReplyAndLeavesTheRest() throws {
        let full = "*2\r\n:1\r\n$4\r\nab\r\n\r\n:7\r\n"
        for cut in 0..<(full.utf8.count - 5) {
            let partial = String(decoding: full.utf8.prefix(cut), as: UTF8.self)
            var buffer = ByteBuffer(string: partial)
            let value = try RESPDecoder.parse(&buffer)
            #expect(value == nil, "prefix of \(cut) bytes")
            #expect(buffer.readableBytes == partial.utf8.count)
        }
        var buffer = ByteBuffer(string: full)
        let first = try RESPDecoder.parse(&buffer)
        let second = try RESPDecoder.parse(&buffer)
        #expect(first == .array([.integer(1), .bulkString(ByteBuffer(string: "ab\r\n"))]))
        #expect(second == .integer(7))
    }

    @Test(arguments: ["?\r\n", ":abc\r\n", "+OK\n", "$3\r\nabcd\r\n"])
    func rejectsMalformedReplies(text: String) {
        #expect(throws: RateLimitStoreError.protocolError) { try parse(text) }
    }

    @Test func encodesCommandsAsBulkStringArrays() {
        var buffer = ByteBuffer()
        RedisCommand("SET", "k", "vé").encode(into: &buffer)
        #expect(String(buffer: buffer) == "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\nvé\r\n")
    }

    @Test func parsesRedisURLs() throws {
        let plain = try RedisEndpoint(url: "redis://localhost")
        #expect(plain == RedisEndpoint(host: "localhost", port: 6379, username: nil, password: nil, database: 0))
        #expect(plain.setupCommands.isEmpty)
        let full = try RedisEndpoint(url: "redis://user:p%40ss@10.0.0.5:6380/2")
        #expect(full == RedisEndpoint(host: "10.0.0.5", port: 6380, username: "user", password: "p@ss", database: 2))
        #expect(full.setupCommands == [RedisCommand("AUTH", "user", "p@ss"), RedisCommand("SELECT", "2")])
        let passwordOnly = try RedisEndpoint(url: "redis://:secret@[::1]:7000/")
        #expect(passwordOnly == RedisEndpoint(host: "::1", port: 7000, username: nil, password: "secret", database: 0))
        #expect(passwordOnly.setupCommands == [RedisCommand("AUTH", "secret")])
    }

    @Test(arguments: [
        "", "http://localhost", "redis://", "redis://host:0", "redis://host:70000", "redis://host:x", "redis://host/-1",
        "redis://host/a", "redis://user@host", "redis://host?db=1", "redis://[::1", "redis://:%zz@host",
    ])
    func rejectsBadRedisURLs(url: String) {
        #expect(throws: RateLimitStoreError.invalidConfiguration) { try RedisEndpoint(url: url) }
    }

    @Test func sha1MatchesKnownDigests() {
        #expect(SHA1.hexDigest("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(SHA1.hexDigest("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(SHA1.hexDigest(String(repeating: "a", count: 1000)) == "291e9a6c66994949b57ba5e650361e98fc36b1ba")
    }

    @Test func scriptReplyParsing() throws {
        let reply = RESPValue.array([.integer(0), .integer(0), .integer(2), .bulkString(ByteBuffer(string: "360")), .bulkString(ByteBuffer(string: "0.5"))])
        #expect(try TokenBucketScript.decision(from: reply) == RateLimitDecision(allowed: false, shadowLimited: false, remaining: 2, retryAfter: 360, secondsToNextToken: 0.5))
        #expect(throws: RateLimitStoreError.scriptError) { try TokenBucketScript.decision(from: .error("ERR boom")) }
        #expect(throws: RateLimitStoreError.protocolError) { try TokenBucketScript.decision(from: .integer(1)) }
        #expect(TokenBucketScript.isNoScript(.error("NOSCRIPT No matching script. Please use EVAL.")))
        #expect(TokenBucketScript.redisKey(limit: .storyGeneration, tag: "0123abcd") == "storygate:rl:story-generation:{0123abcd}")
    }
}
