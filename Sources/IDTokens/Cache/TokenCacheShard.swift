/// One shard of `TokenCache`: entries by token hash, evicted oldest first (FIFO) through a ring of hashes.
/// Not thread-safe by itself; `TokenCache` guards each shard with a mutex.
///
/// A lookup reads the index and then the token's bytes: the entry is the dictionary's value, not a slot of a
/// second array, which would be one more dependent read from memory on every request (the cache is larger than
/// a core's L2).
struct TokenCacheShard {
    private struct Entry {
        var token: [UInt8]
        var verified: VerifiedToken
        var expiresAt: Double
        /// Where the entry's hash is in `order`.
        var slot: Int
    }

    private var entries: [UInt64: Entry]
    /// Hashes in the order they were inserted, `capacity` slots; the slot at `next` is the next to go. A slot may
    /// name an entry already removed, or since replaced by one in another slot: only `entry.slot` counts.
    private var order: [UInt64?]
    private var next = 0

    init(capacity: Int) {
        entries = Dictionary(minimumCapacity: capacity)
        order = Array(repeating: nil, count: capacity)
    }

    /// The number of entries, including expired ones not yet dropped.
    var count: Int { entries.count }

    /// The entry for `token` if it is present and `now < expiresAt`; an expired entry is removed.
    mutating func lookup(hash: UInt64, token: UnsafeBufferPointer<UInt8>, now: Double) -> VerifiedToken? {
        guard let index = entries.index(forKey: hash) else { return nil }
        // The entry is read in place (`inout`): a copy would retain and release each of its references.
        switch Self.match(&entries.values[index], token: token, now: now) {
        case .hit(let verified):
            return verified
        case .miss:
            return nil
        case .expired:
            entries.remove(at: index)
            return nil
        }
    }

    private enum Match {
        case hit(VerifiedToken)
        case miss
        case expired
    }

    private static func match(_ entry: inout Entry, token: UnsafeBufferPointer<UInt8>, now: Double) -> Match {
        // In constant time: a bearer token is a secret.
        guard entry.token.withUnsafeBytes({ ConstantTime.equals($0, UnsafeRawBufferPointer(token)) }) else { return .miss }
        return now < entry.expiresAt ? .hit(entry.verified) : .expired
    }

    /// Stores `verified` for `token` until `expiresAt`, evicting the oldest entry when full.
    mutating func insert(hash: UInt64, token: UnsafeBufferPointer<UInt8>, verified: VerifiedToken, expiresAt: Double) {
        guard !order.isEmpty else { return }
        if let slot = entries[hash]?.slot {
            // The same token again, or (vanishingly rarely) another token with the same 64-bit hash: replace.
            entries[hash] = Entry(token: Array(token), verified: verified, expiresAt: expiresAt, slot: slot)
            return
        }
        if let old = order[next], entries[old]?.slot == next {
            entries[old] = nil
        }
        order[next] = hash
        entries[hash] = Entry(token: Array(token), verified: verified, expiresAt: expiresAt, slot: next)
        next = next + 1 == order.count ? 0 : next + 1
    }

    /// Drops every entry.
    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        for slot in order.indices { order[slot] = nil }
        next = 0
    }
}
