@testable import IDTokens
import Testing
import TestSupport

@Suite("TokenCache")
struct TokenCacheTests {
    static let now: Double = 1_700_000_000

    /// A verified result expiring at `exp`; the token text itself is only a key for the cache.
    static func verified(_ uid: String, exp: Double = now + 3600) -> VerifiedToken {
        VerifiedToken(uid: uid, projectID: "p", expiresAt: exp, issuedAt: now, authTime: nil, claimsJSON: #"{"sub":"\#(uid)"}"#)
    }

    /// A token-shaped string whose last 16 bytes are unique (like an RSA signature).
    static func token(_ index: Int) -> String {
        "header.payload." + String(repeating: "s", count: 300) + String(index, radix: 16).leftPadded(to: 16)
    }

    @Test("a cached token is found only by the same bytes: a difference at any position, in a word or the tail, misses")
    func everyByteCounts() {
        let cache = TokenCache(capacity: 4)
        // Same last 16 bytes (the same hash and slot), different elsewhere.
        let token = String(repeating: "a", count: 1003) + "0123456789abcdef"
        cache.insert(token, Self.verified("alice"), now: Self.now)
        #expect(cache.lookup(token, now: Self.now)?.uid == "alice")
        var bytes = Array(token.utf8)
        for position in [0, 1, 7, 8, 500, 999, 1000, 1002] {
            bytes[position] = UInt8(ascii: "b")
            #expect(cache.lookup(String(decoding: bytes, as: UTF8.self), now: Self.now) == nil, "\(position)")
            bytes[position] = UInt8(ascii: "a")
        }
        #expect(cache.lookup(String(token.dropFirst()), now: Self.now) == nil)
        // A miss leaves the entry it compared against.
        #expect(cache.lookup(token, now: Self.now)?.uid == "alice")
        #expect(cache.count == 1)
    }

    @Test("secrets compare equal only byte for byte and length for length, a difference anywhere counting")
    func constantTimeEquality() {
        for count in 0...20 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 1) }
            bytes.withUnsafeBytes { a in
                #expect(Array(bytes).withUnsafeBytes { ConstantTime.equals(a, $0) }, "\(count)")
                for position in 0..<count {
                    var other = bytes
                    other[position] ^= 0x01
                    #expect(!other.withUnsafeBytes { ConstantTime.equals(a, $0) }, "\(count) at \(position)")
                }
                #expect(!(bytes + [0]).withUnsafeBytes { ConstantTime.equals(a, $0) }, "\(count) and one more")
            }
        }
    }

    @Test("hit and miss")
    func hitAndMiss() {
        let cache = TokenCache(capacity: 100)
        cache.insert(Self.token(1), Self.verified("a"), now: Self.now)
        #expect(cache.lookup(Self.token(1), now: Self.now) == Self.verified("a"))
        #expect(cache.lookup(Self.token(2), now: Self.now) == nil)
        #expect(cache.lookup("", now: Self.now) == nil)
        #expect(cache.count == 1)
    }

    @Test("entries expire at exp exactly, with no skew")
    func expiry() {
        let cache = TokenCache(capacity: 10)
        cache.insert(Self.token(1), Self.verified("a", exp: Self.now + 60), now: Self.now)
        #expect(cache.lookup(Self.token(1), now: Self.now + 59.999) != nil)
        #expect(cache.lookup(Self.token(1), now: Self.now + 60) == nil)
        #expect(cache.lookup(Self.token(1), now: Self.now + 10) == nil)  // dropped once seen expired
        #expect(cache.count == 0)
    }

    @Test("maxEntryLifetime bounds entries of long-lived tokens")
    func maxLifetime() {
        let cache = TokenCache(capacity: 10, maxEntryLifetime: 30)
        cache.insert(Self.token(1), Self.verified("a"), now: Self.now)
        #expect(cache.lookup(Self.token(1), now: Self.now + 29) != nil)
        #expect(cache.lookup(Self.token(1), now: Self.now + 30) == nil)
    }

    @Test("already expired tokens are not inserted")
    func expiredInsert() {
        let cache = TokenCache(capacity: 10)
        cache.insert(Self.token(1), Self.verified("a", exp: Self.now), now: Self.now)
        #expect(cache.count == 0)
    }

    @Test("bounded: never more than capacity, newest kept", arguments: [1, 5, 16, 17, 100])
    func capacityBound(capacity: Int) {
        let cache = TokenCache(capacity: capacity)
        for index in 0..<(capacity * 5 + 7) {
            cache.insert(Self.token(index), Self.verified("u\(index)"), now: Self.now)
            #expect(cache.count <= capacity)
        }
        let last = capacity * 5 + 6
        #expect(cache.lookup(Self.token(last), now: Self.now) == Self.verified("u\(last)"))
    }

    @Test("capacity 0 disables the cache")
    func disabled() {
        let cache = TokenCache(capacity: 0)
        cache.insert(Self.token(1), Self.verified("a"), now: Self.now)
        #expect(cache.lookup(Self.token(1), now: Self.now) == nil)
        #expect(cache.count == 0)
    }

    @Test("tokens differing only in the head never return each other's result")
    func sameTailDifferentHead() {
        let cache = TokenCache(capacity: 100)
        let tail = "." + String(repeating: "t", count: 342)
        let tokenA = "headerA.payloadA" + tail
        let tokenB = "headerB.payloadB" + tail
        cache.insert(tokenA, Self.verified("a"), now: Self.now)
        #expect(cache.lookup(tokenB, now: Self.now) == nil)
        cache.insert(tokenB, Self.verified("b"), now: Self.now)
        #expect(cache.lookup(tokenB, now: Self.now) == Self.verified("b"))
        #expect(cache.lookup(tokenA, now: Self.now)?.uid != "b")
    }

    @Test("re-inserting a token replaces its entry")
    func replace() {
        let cache = TokenCache(capacity: 4)
        cache.insert(Self.token(1), Self.verified("a"), now: Self.now)
        cache.insert(Self.token(1), Self.verified("a2"), now: Self.now)
        #expect(cache.lookup(Self.token(1), now: Self.now)?.uid == "a2")
        #expect(cache.count == 1)
    }

    @Test("eviction goes oldest first: an entry dropped at expiry and inserted again waits for its new turn")
    func evictionAfterReinsertion() {
        var shard = TokenCacheShard(capacity: 3)
        func insert(_ hash: UInt64, _ uid: String, exp: Double = Self.now + 3600) {
            Array(Self.token(Int(hash)).utf8).withUnsafeBufferPointer {
                shard.insert(hash: hash, token: $0, verified: Self.verified(uid, exp: exp), expiresAt: exp)
            }
        }
        func lookup(_ hash: UInt64, at now: Double = Self.now) -> String? {
            Array(Self.token(Int(hash)).utf8).withUnsafeBufferPointer { shard.lookup(hash: hash, token: $0, now: now)?.uid }
        }
        insert(1, "a", exp: Self.now + 10)
        insert(2, "b")
        #expect(lookup(1, at: Self.now + 10) == nil)  // expired: dropped
        #expect(shard.count == 1)
        insert(1, "a again")
        insert(3, "c")  // the first slot named the dropped entry: nothing evicted
        #expect(shard.count == 3)
        #expect([lookup(1), lookup(2), lookup(3)] == ["a again", "b", "c"])
        insert(4, "d")  // b is the oldest
        #expect([lookup(1), lookup(2), lookup(3), lookup(4)] == ["a again", nil, "c", "d"])
        insert(5, "e")  // then a, in its new turn
        #expect([lookup(1), lookup(3), lookup(4), lookup(5)] == [nil, "c", "d", "e"])
        #expect(shard.count == 3)
    }

    @Test("Substring keys match String keys; removeAll empties")
    func substringAndRemoveAll() {
        let cache = TokenCache(capacity: 8)
        let header = "Bearer " + Self.token(3)
        cache.insert(header.dropFirst(7), Self.verified("s"), now: Self.now)
        #expect(cache.lookup(Self.token(3), now: Self.now)?.uid == "s")
        cache.removeAll()
        #expect(cache.count == 0)
    }

    @Test("concurrent inserts and lookups stay consistent")
    func concurrent() async {
        let cache = TokenCache(capacity: 256)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<200 {
                        let key = worker * 1000 + index
                        cache.insert(Self.token(key), Self.verified("u\(key)"), now: Self.now)
                        let found = cache.lookup(Self.token(key), now: Self.now)
                        #expect(found == nil || found?.uid == "u\(key)")
                    }
                }
            }
        }
        #expect(cache.count <= 256)
    }

    @Test("tokens spread over every shard: a cache half full keeps them all")
    func spreadOverShards() {
        // 16 shards of ~63 entries: 500 tokens fit only if they are spread (one shard alone would keep ~63).
        let cache = TokenCache(capacity: 1_000)
        for index in 0..<500 { cache.insert(Self.token(index), Self.verified("u\(index)"), now: Self.now) }
        #expect(cache.count == 500)
        let hits = (0..<500).filter { cache.lookup(Self.token($0), now: Self.now) != nil }.count
        #expect(hits == 500)
    }
}

extension String {
    func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }

}
