import Logging
import NIOCore
import TestSupport
import Testing

@testable import RateLimiting

/// `RedisCommands` on a real redis-server: the store's pools, binary-safe arguments and replies, scripts cached
/// again after `NOSCRIPT`.
@Suite("RedisCommands against a real Redis")
struct RedisCommandsTests {
    static let echo = RedisScript("return {KEYS[1], ARGV[1], redis.call('INCR', KEYS[1])}")

    @Test("arguments and replies are bytes: every byte value, CR LF included, round-trips")
    func binarySafe() async throws {
        try await withRedisServer { redis in
            try await withRedisStore(redis) { store in
                let value = Array(0...255) + Array("\r\n$-1\r\n".utf8)
                let set = try await store.commands.send(["SET", "blob", RedisArgument(bytes: value)], key: "blob", timeout: .seconds(2))
                #expect(set == .simpleString("OK"))
                let reply = try await store.commands.send(["GET", "blob"], key: "blob", timeout: .seconds(2))
                #expect(reply.bytes == value)
                #expect(try await store.commands.send(["GET", "none"], key: "none", timeout: .seconds(2)).isNull)
            }
        }
    }

    @Test("an error reply is returned for the caller to read")
    func errorReply() async throws {
        try await withRedisServer { redis in
            try await withRedisStore(redis) { store in
                _ = try await store.commands.send(["SET", "text", "abc"], key: "text", timeout: .seconds(2))
                let reply = try await store.commands.send(["INCR", "text"], key: "text", timeout: .seconds(2))
                #expect(reply.errorMessage?.hasPrefix("ERR") == true)
            }
        }
    }

    @Test("a script runs by EVALSHA, and by EVAL once Redis has lost it (NOSCRIPT), which caches it again")
    func scriptAfterFlush() async throws {
        try await withRedisServer { redis in
            try await withRedisStore(redis) { store in
                let first = try await store.commands.run(Self.echo, keys: ["counter"], arguments: [RedisArgument(bytes: [0, 255])], timeout: .seconds(2))
                #expect(first.array?.map(\.bytes) == [Array("counter".utf8), [0, 255], nil])
                #expect(first.array?.last == .integer(1))
                try redis.cli("SCRIPT", "FLUSH")
                #expect(try redis.cli("SCRIPT", "EXISTS", Self.echo.sha1) == "0")
                let second = try await store.commands.run(Self.echo, keys: ["counter"], arguments: ["x"], timeout: .seconds(2))
                #expect(second.array?.last == .integer(2))
                #expect(try redis.cli("SCRIPT", "EXISTS", Self.echo.sha1) == "1")
                // The rate-limit check shares the connections and still works.
                #expect(try await store.check(RateLimit(name: "story-generation", capacity: 2, period: 60), key: "ann", cost: 1).allowed)
            }
        }
    }

    @Test("a script's SHA-1 is Redis's")
    func scriptDigest() async throws {
        try await withRedisServer { redis throws in
            #expect(try redis.cli("SCRIPT", "LOAD", Self.echo.source) == Self.echo.sha1)
        }
    }

    @Test("a blocking command is refused before it is sent: it would hold a shared connection")
    func blockingRefused() async {
        await #expect(processExitsWith: .failure) {
            let store = try RedisRateLimitStore(configuration: .init(url: "redis://127.0.0.1:1"), logger: Logger(label: "test"))
            _ = try await store.commands.send(["XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"], key: "s", timeout: .seconds(1))
        }
    }
}

extension RedisClusterStoreTests {
    @Test("RedisCommands: commands and scripts go to their key's primary, following MOVED and ASK")
    func commandsFollowRedirections() async throws {
        try await withRedisCluster { cluster async throws in
            try await withClusterStore(cluster) { store async throws in
                let commands = store.commands
                #expect(commands.isCluster)
                // Keys on every primary.
                for index in 0..<30 {
                    let key = "item:{\(index)}"
                    _ = try await commands.send(["SET", RedisArgument(key), RedisArgument(bytes: [UInt8(index), 0, 255])], key: key, timeout: .seconds(2))
                }
                for node in cluster.nodes { #expect(try Int(node.cli("DBSIZE")) ?? 0 > 0) }

                let key = "item:{7}"
                let slot = try cluster.slot(of: key)
                let source = try cluster.owner(of: slot)
                let target = try #require(cluster.nodes.first { $0 !== source })
                try cluster.beginMigration(slot: slot, from: source, to: target)
                // The source answers ASK for the key it no longer holds.
                #expect(try await commands.send(["GET", RedisArgument(key)], key: key, timeout: .seconds(2)).bytes == [7, 0, 255])
                let counted = RedisScript("return redis.call('APPEND', KEYS[1], ARGV[1])")
                #expect(try await commands.run(counted, keys: [key], arguments: ["!"], timeout: .seconds(2)) == .integer(4))
                try cluster.finishMigration(slot: slot, from: source, to: target)
                // Then MOVED.
                #expect(try await commands.send(["GET", RedisArgument(key)], key: key, timeout: .seconds(2)).bytes == [7, 0, 255] + Array("!".utf8))
                #expect(store.clusterTopology?.owner(of: slot)?.port == target.port)
            }
        }
    }
}
