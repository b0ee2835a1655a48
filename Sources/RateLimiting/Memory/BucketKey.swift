/// A caller's key as a 128-bit fingerprint: two SipHash values with this process's random seed.
///
/// Stored inline (16 bytes) instead of the key's String (about 64 bytes on the heap for a 28-character uid),
/// which halves the memory per user. Two keys share a bucket only if both 64-bit halves collide: about
/// n² / 2¹²⁹ for n keys (≈ 10⁻²⁷ for a million), and with a per-process secret seed an attacker cannot aim for it.
struct BucketKey: Hashable {
    let high: UInt64
    let low: UInt64

    /// Hashes the key's UTF-8 bytes, not the `String`: Swift's `String` equality (and hash) is canonical equivalence,
    /// so `"é"` as one scalar and as `e` + U+0301 would share a bucket, while uids (and Redis keys) are byte strings.
    init(_ key: String) {
        var key = key
        (self.high, self.low) = key.withUTF8 { bytes in
            var first = Hasher()
            first.combine(bytes: UnsafeRawBufferPointer(bytes))
            var second = Hasher()
            second.combine(0x5354_4F52_5947_4154 as UInt64)  // "STORYGAT": a different prefix, an independent hash
            second.combine(bytes: UnsafeRawBufferPointer(bytes))
            return (UInt64(UInt(bitPattern: first.finalize())), UInt64(UInt(bitPattern: second.finalize())))
        }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(self.low)
    }
}
