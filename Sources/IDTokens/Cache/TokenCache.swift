import Synchronization

/// Verified tokens keyed on the exact token bytes, so a repeated token skips RSA.
///
/// Bounded: at most `capacity` entries, spread over up to 16 shards, each a FIFO ring behind its own mutex
/// (no global lock). An entry expires at the token's `exp` (no clock skew) or after `maxEntryLifetime`
/// seconds, whichever comes first; lookups re-check `now < expiresAt`, so expired entries are never returned.
/// Capacity 0 disables the cache.
///
/// The shard and index use a hash of the token's last 16 bytes (an RSA signature for every token that can
/// be inserted) with a per-process random seed; equality always compares every byte.
public final class TokenCache: Sendable {
    private final class Shard: Sendable {
        let state: Mutex<TokenCacheShard>

        init(capacity: Int) {
            state = Mutex(TokenCacheShard(capacity: capacity))
        }
    }

    private static let seed = UInt64.random(in: .min ... .max)
    private let shards: [Shard]
    /// The most entries the cache holds.
    public let capacity: Int
    /// The longest an entry is kept, in seconds.
    public let maxEntryLifetime: Double

    /// A cache of at most `capacity` verified tokens (0 disables it), each kept at most `maxEntryLifetime` seconds.
    public init(capacity: Int, maxEntryLifetime: Double = 3600) {
        let capacity = max(capacity, 0)
        self.capacity = capacity
        self.maxEntryLifetime = maxEntryLifetime
        let shardCount = min(16, capacity)
        self.shards = (0..<shardCount).map { shard in
            Shard(capacity: capacity / shardCount + (shard < capacity % shardCount ? 1 : 0))
        }
    }

    /// The verified token cached for exactly `token`, if present and `now` is before its expiry.
    @inlinable
    public func lookup(_ token: some StringProtocol, now: Double) -> VerifiedToken? {
        token.utf8.withContiguousStorageIfAvailable { lookup(bytes: $0, now: now) }
            ?? Array(token.utf8).withUnsafeBufferPointer { lookup(bytes: $0, now: now) }
    }

    /// Caches `verified` for exactly `token`. Only insert tokens that `TokenVerifier` accepted.
    @inlinable
    public func insert(_ token: some StringProtocol, _ verified: VerifiedToken, now: Double) {
        token.utf8.withContiguousStorageIfAvailable { insert(bytes: $0, verified, now: now) }
            ?? Array(token.utf8).withUnsafeBufferPointer { insert(bytes: $0, verified, now: now) }
    }

    /// The number of entries, including expired ones not yet dropped.
    public var count: Int {
        shards.reduce(0) { total, shard in total + shard.state.withLock { $0.count } }
    }

    /// Drops every entry.
    public func removeAll() {
        for shard in shards {
            shard.state.withLock { $0.removeAll() }
        }
    }

    @usableFromInline
    func lookup(bytes: UnsafeBufferPointer<UInt8>, now: Double) -> VerifiedToken? {
        guard !shards.isEmpty, !bytes.isEmpty else { return nil }
        let hash = Self.hash(bytes)
        return shard(for: hash).state.withLock { $0.lookup(hash: hash, token: bytes, now: now) }
    }

    @usableFromInline
    func insert(bytes: UnsafeBufferPointer<UInt8>, _ verified: VerifiedToken, now: Double) {
        guard !shards.isEmpty, !bytes.isEmpty else { return }
        let expiresAt = min(verified.expiresAt, now + maxEntryLifetime)
        guard now < expiresAt else { return }
        let hash = Self.hash(bytes)
        shard(for: hash).state.withLock {
            $0.insert(hash: hash, token: bytes, verified: verified, expiresAt: expiresAt)
        }
    }

    @inline(__always)
    private func shard(for hash: UInt64) -> Shard {
        // Multiply-shift of the high half onto 0..<count. (Parenthesised: `>>` binds tighter than `&*`.)
        shards[Int(truncatingIfNeeded: ((hash >> 32) &* UInt64(shards.count)) >> 32)]
    }

    /// A seeded hash of the length and the last 16 bytes.
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let count = bytes.count
        let raw = UnsafeRawPointer(bytes.baseAddress!)
        var a: UInt64 = 0
        var b: UInt64 = 0
        if count >= 16 {
            a = raw.loadUnaligned(fromByteOffset: count - 16, as: UInt64.self)
            b = raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else {
            for (offset, byte) in bytes.enumerated() {
                if offset < 8 { a |= UInt64(byte) << (offset * 8) } else { b |= UInt64(byte) << ((offset - 8) * 8) }
            }
        }
        var hash = seed ^ (UInt64(count) &* 0x9E37_79B9_7F4A_7C15)
        hash = mix(hash ^ a)
        hash = mix(hash ^ b)
        return hash
    }

    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 32
        x &*= 0xD6E8_FEB8_6659_FD93
        x ^= x >> 32
        x &*= 0xD6E8_FEB8_6659_FD93
        x ^= x >> 32
        return x
    }
}
