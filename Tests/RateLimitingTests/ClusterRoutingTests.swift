import Logging
import NIOCore
import Testing

@testable import RateLimiting

@Suite("Redis Cluster routing: key slots, hash tags, redirections, CLUSTER SLOTS, seed URLs")
struct ClusterRoutingTests {
    @Test("CRC16 and slots match the Redis Cluster specification's values")
    func slotsOfKnownKeys() {
        let check = Array("123456789".utf8)
        #expect(check.withUnsafeBufferPointer { ClusterKeySlot.crc16($0) } == 0x31C3)
        #expect(ClusterKeySlot.slot(of: "123456789") == 0x31C3 % 16384)
        #expect(ClusterKeySlot.slot(of: "123456789") == 12739)
        // CLUSTER KEYSLOT examples from the Redis documentation.
        #expect(ClusterKeySlot.slot(of: "somekey") == 11058)
        #expect(ClusterKeySlot.slot(of: "foo{hash_tag}") == 2515)
        #expect(ClusterKeySlot.slot(of: "") == 0)
    }

    @Test("a hash tag is the text between the first { and the next }, when not empty")
    func hashTags() {
        let slot = ClusterKeySlot.slot(of:)
        #expect(slot("{user1000}.following") == slot("user1000"))
        #expect(slot("{user1000}.followers") == slot("user1000"))
        #expect(slot("foo{hash_tag}") == slot("hash_tag"))
        // The specification's edge cases.
        #expect(slot("foo{{bar}}zap") == slot("{bar"))
        #expect(slot("foo{bar}{zap}") == slot("bar"))
        #expect(slot("foo{}{bar}") != slot("bar"))  // an empty tag: the whole key is hashed
        #expect(slot("foo{}{bar}") == Self.wholeKeySlot("foo{}{bar}"))
        #expect(slot("foo{bar") == Self.wholeKeySlot("foo{bar"))  // no closing brace
        #expect(slot("{ü}") == slot("ü"))  // bytes, not characters
    }

    @Test("a user's buckets share a slot and carry a pseudonym, never the key")
    func bucketKeys() throws {
        let store = try RedisRateLimitStore(configuration: .init(url: "redis://127.0.0.1:1"), logger: .init(label: "test"))
        let story = store.redisKey(for: .storyGeneration, key: "uid-alice")
        let avatar = store.redisKey(for: RateLimit(name: "avatar-generation", capacity: 1, period: 1), key: "uid-alice")
        #expect(!story.contains("alice") && !avatar.contains("alice"))
        #expect(story.hasPrefix("storygate:rl:story-generation:{") && story.hasSuffix("}"))
        #expect(ClusterKeySlot.slot(of: story) == ClusterKeySlot.slot(of: avatar))
        #expect(story == "storygate:rl:story-generation:{\(RedisRateLimitStore.defaultKeyHash("uid-alice"))}")
        #expect(RedisRateLimitStore.defaultKeyHash("uid-alice").count == 16)
        #expect(store.redisKey(for: .storyGeneration, key: "uid-bob") != story)
    }

    @Test("MOVED and ASK replies are read; other errors are not redirections")
    func redirections() {
        let asked = ClusterNodeAddress(host: "10.0.0.1", port: 7000)
        let moved = ClusterRedirect(.error("MOVED 3999 127.0.0.1:6381"), answeredBy: asked)
        #expect(moved?.kind == .moved && moved?.slot == 3999 && moved?.node == ClusterNodeAddress(host: "127.0.0.1", port: 6381))
        let ask = ClusterRedirect(.error("ASK 3999 127.0.0.1:6381"), answeredBy: asked)
        #expect(ask?.kind == .ask && ask?.slot == 3999 && ask?.node == ClusterNodeAddress(host: "127.0.0.1", port: 6381))
        // An unknown endpoint: the host of the node that answered.
        #expect(ClusterRedirect(.error("MOVED 1 :7002"), answeredBy: asked)?.node == ClusterNodeAddress(host: "10.0.0.1", port: 7002))
        #expect(ClusterRedirect(.error("MOVED 1 ::1:7002"), answeredBy: asked)?.node == ClusterNodeAddress(host: "::1", port: 7002))
        #expect(ClusterRedirect(.error("ASK 16383 redis-2.example:6379"), answeredBy: asked)?.node == ClusterNodeAddress(host: "redis-2.example", port: 6379))
        for notRedirect: RESPValue in [
            .error("NOSCRIPT No matching script"), .error("CLUSTERDOWN The cluster is down"), .simpleString("MOVED 1 a:1"),
            .error("MOVED 16384 a:1"), .error("MOVED 1 a"), .error("MOVED 1 a:0"), .error("MOVED x a:1"), .error("ASK 1"),
        ] {
            #expect(ClusterRedirect(notRedirect, answeredBy: asked) == nil)
        }
    }

    @Test("CLUSTER SLOTS: each range's primary; replicas ignored; an unknown host is the node asked")
    func topologyFromClusterSlots() throws {
        func node(_ host: String, _ port: Int64, _ id: String) -> RESPValue {
            .array([.bulkString(ByteBuffer(string: host)), .integer(port), .bulkString(ByteBuffer(string: id))])
        }
        let reply = RESPValue.array([
            .array([.integer(0), .integer(5460), node("127.0.0.1", 7000, "a"), node("127.0.0.1", 7100, "a-replica")]),
            .array([.integer(5461), .integer(10922), node("", 7001, "b")]),
            .array([.integer(10923), .integer(16383), node("127.0.0.1", 7002, "c")]),
            .array([.integer(6000), .integer(6000), node("127.0.0.1", 7000, "a")]),  // a primary with two ranges
        ])
        let asked = ClusterNodeAddress(host: "10.0.0.9", port: 7001)
        let topology = try ClusterTopology(slotsReply: reply, answeredBy: asked)
        #expect(topology.nodes.map(\.port) == [7000, 7001, 7002])
        #expect(topology.owner(of: 0)?.port == 7000 && topology.owner(of: 5460)?.port == 7000)
        #expect(topology.owner(of: 5461) == .init(host: "10.0.0.9", port: 7001))
        #expect(topology.owner(of: 6000)?.port == 7000)
        #expect(topology.owner(of: 16383)?.port == 7002)
        #expect(topology.unservedSlotCount == 0)

        var moved = topology
        moved.assign(42, to: .init(host: "127.0.0.1", port: 7003))
        #expect(moved.owner(of: 42)?.port == 7003 && moved.nodes.count == 4)

        #expect(throws: RateLimitStoreError.unavailable) { try ClusterTopology(slotsReply: .error("ERR This instance has cluster support disabled"), answeredBy: asked) }
        #expect(throws: RateLimitStoreError.unavailable) { try ClusterTopology(slotsReply: .array([]), answeredBy: asked) }
        #expect(throws: RateLimitStoreError.protocolError) { try ClusterTopology(slotsReply: .array([.array([.integer(5), .integer(1), node("a", 1, "x")])]), answeredBy: asked) }
        #expect(throws: RateLimitStoreError.protocolError) { try ClusterTopology(slotsReply: .array([.array([.integer(0), .integer(16384), node("a", 1, "x")])]), answeredBy: asked) }
        #expect(throws: RateLimitStoreError.protocolError) { try ClusterTopology(slotsReply: .integer(1), answeredBy: asked) }
    }

    @Test("seed URLs: one or more hosts after the scheme, sharing the credentials")
    func seedURLs() throws {
        let seeds = try RedisEndpoint.endpoints(url: "redis://:s%40cret@10.0.0.1:7000,redis-b,[::1]:7002")
        #expect(seeds == [
            RedisEndpoint(host: "10.0.0.1", port: 7000, password: "s@cret"),
            RedisEndpoint(host: "redis-b", port: 6379, password: "s@cret"),
            RedisEndpoint(host: "::1", port: 7002, password: "s@cret"),
        ])
        #expect(RedisRateLimitStore.isValidURL("redis://a:7000,b:7001,c:7002", cluster: true))
        #expect(RedisRateLimitStore.isValidURL("redis://a:7000", cluster: true))
        #expect(!RedisRateLimitStore.isValidURL("redis://a:7000,b:7001"))  // several hosts: cluster mode only
        #expect(!RedisRateLimitStore.isValidURL("redis://a:7000,b:7001/2", cluster: true))  // a cluster has database 0 only
        #expect(RedisRateLimitStore.isValidURL("redis://a:7000,b:7001/0", cluster: true))
        for bad in ["redis://a:7000,,b:7001", "redis://a:7000,", "redis://,a:7000", "redis://a:7000,b:99999", "redis://a:7000,[::1", "http://a:1,b:2", "redis://"] {
            #expect(!RedisRateLimitStore.isValidURL(bad, cluster: true), "\(bad)")
        }
        #expect(RedisRateLimitStore.problem(withURL: "redis://a:1,b:2", cluster: false)?.contains("several hosts") == true)
        #expect(RedisRateLimitStore.problem(withURL: "redis://a:1,b:2", cluster: true) == nil)
        do {
            _ = try RedisRateLimitStore(configuration: .init(url: "redis://:hunter2@a:1,b:x"), logger: .init(label: "test"))
            Issue.record("a malformed URL was accepted")
        } catch {
            #expect(error == .invalidConfiguration)
            #expect("\(error)".contains("expected redis://"))
            #expect(!"\(error)".contains("hunter2"))
        }
    }

    private static func wholeKeySlot(_ key: String) -> Int {
        Int(Array(key.utf8).withUnsafeBufferPointer { ClusterKeySlot.crc16($0) } & 0x3FFF)
    }
}
