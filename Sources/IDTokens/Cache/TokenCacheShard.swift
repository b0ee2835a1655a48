/// One shard of `TokenCache`: a fixed ring of entries (FIFO eviction) with an index by token hash.
/// Not thread-safe by itself; `TokenCache` guards each shard with a mutex.
struct TokenCacheShard {
    private struct Entry {
        var hash: UInt64
        var token: [UInt8]
        var verified: VerifiedToken
        var expiresAt: Double
    }

    private var ring: [Entry?]
    private var index: [UInt64: Int]
    private var next = 0
    private(set) var count = 0

    init(capacity: Int) {
        ring = Array(repeating: nil, count: capacity)
        index = Dictionary(minimumCapacity: capacity)
    }

    /// The entry for `token` if it is present and `now < expiresAt`; an expired entry is removed.
    mutating func lookup(hash: UInt64, token: UnsafeBufferPointer<UInt8>, now: Double) -> VerifiedToken? {
        guard let slot = index[hash], let entry = ring[slot] else { return nil }
        // In constant time: a bearer token is a secret.
        guard entry.token.withUnsafeBytes({ ConstantTime.equals($0, UnsafeRawBufferPointer(token)) }) else { return nil }
        guard now < entry.expiresAt else {
            remove(slot: slot)
            return nil
        }
        return entry.verified
    }

    /// Stores `verified` for `token` until `expiresAt`, evicting the oldest entry when full.
    mutating func insert(hash: UInt64, token: UnsafeBufferPointer<UInt8>, verified: VerifiedToken, expiresAt: Double) {
        guard !ring.isEmpty else { return }
        let entry = Entry(hash: hash, token: Array(token), verified: verified, expiresAt: expiresAt)
        if let slot = index[hash] {
            // The same token again, or (vanishingly rarely) another token with the same 64-bit hash: replace.
            if ring[slot] == nil { count += 1 }
            ring[slot] = entry
            return
        }
        if let old = ring[next] {
            index[old.hash] = nil
            count -= 1
        }
        ring[next] = entry
        index[hash] = next
        count += 1
        next = next + 1 == ring.count ? 0 : next + 1
    }

    private mutating func remove(slot: Int) {
        guard let entry = ring[slot] else { return }
        index[entry.hash] = nil
        ring[slot] = nil
        count -= 1
    }

    /// Drops every entry.
    mutating func removeAll() {
        for slot in ring.indices { ring[slot] = nil }
        index.removeAll(keepingCapacity: true)
        count = 0
        next = 0
    }
}
