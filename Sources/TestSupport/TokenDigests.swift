/// Small pure-Swift SHA-256, SHA-1 and HMAC-SHA256 for building test tokens (HS256 key-confusion tokens,
/// crafted PKCS#1 v1.5 encodings). Independent of OpenSSL on purpose; never use outside tests.
public enum TokenDigests {
    /// SHA-256 of `message` (FIPS 180-4).
    public static func sha256(_ message: some Collection<UInt8>) -> [UInt8] {
        var state: [UInt32] = [
            0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
        ]
        for block in paddedBlocks(Array(message), bigEndianLength: true) {
            var w = [UInt32](repeating: 0, count: 64)
            for t in 0..<16 { w[t] = word(block, t) }
            for t in 16..<64 {
                let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
            for t in 0..<64 {
                let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ ((e & f) ^ (~e & g)) &+ k256[t] &+ w[t]
                let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) ^ (a & c) ^ (b & c))
                (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            for (index, value) in [a, b, c, d, e, f, g, h].enumerated() { state[index] &+= value }
        }
        return state.flatMap(bigEndianBytes)
    }

    /// SHA-1 of `message` (FIPS 180-4), only to build SHA-1 DigestInfo encodings that must be refused.
    public static func sha1(_ message: some Collection<UInt8>) -> [UInt8] {
        var state: [UInt32] = [0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0]
        for block in paddedBlocks(Array(message), bigEndianLength: true) {
            var w = [UInt32](repeating: 0, count: 80)
            for t in 0..<16 { w[t] = word(block, t) }
            for t in 16..<80 { w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1) }
            var (a, b, c, d, e) = (state[0], state[1], state[2], state[3], state[4])
            for t in 0..<80 {
                let (f, k): (UInt32, UInt32) = switch t {
                case 0..<20: ((b & c) | (~b & d), 0x5A827999)
                case 20..<40: (b ^ c ^ d, 0x6ED9EBA1)
                case 40..<60: ((b & c) | (b & d) | (c & d), 0x8F1BBCDC)
                default: (b ^ c ^ d, 0xCA62C1D6)
                }
                let temp = rotl(a, 5) &+ f &+ e &+ k &+ w[t]
                (e, d, c, b, a) = (d, c, rotl(b, 30), a, temp)
            }
            for (index, value) in [a, b, c, d, e].enumerated() { state[index] &+= value }
        }
        return state.flatMap(bigEndianBytes)
    }

    /// HMAC-SHA256 (RFC 2104) of `message` under `key`.
    public static func hmacSHA256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        var key = Array(key)
        if key.count > 64 { key = sha256(key) }
        key += [UInt8](repeating: 0, count: 64 - key.count)
        let inner = sha256(key.map { $0 ^ 0x36 } + Array(message))
        return sha256(key.map { $0 ^ 0x5C } + inner)
    }

    private static func paddedBlocks(_ message: [UInt8], bigEndianLength: Bool) -> [ArraySlice<UInt8>] {
        var data = message
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        data += bigEndianBytes(UInt64(message.count) * 8)
        return stride(from: 0, to: data.count, by: 64).map { data[$0..<($0 + 64)] }
    }

    private static func word(_ block: ArraySlice<UInt8>, _ index: Int) -> UInt32 {
        let start = block.startIndex + index * 4
        return block[start..<(start + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func bigEndianBytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<(T.bitWidth / 8)).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
    private static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }

    private static let k256: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
}
