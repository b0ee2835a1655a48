/// SplitMix64: a small, fast, deterministic generator (the same sequence for the same seed, on every run and platform).
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { self.state = seed }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// FNV-1a 64: a stable hash of the request's inputs (Swift's `Hasher` is seeded per process, so it cannot be used).
struct StableHash {
    private(set) var value: UInt64 = 0xCBF2_9CE4_8422_2325

    mutating func combine(_ string: String) {
        for byte in string.utf8 { self.combine(byte) }
        self.combine(0xFF)  // separator: "ab","c" differs from "a","bc"
    }

    mutating func combine<Bytes: Sequence<UInt8>>(bytes: Bytes) {
        for byte in bytes { self.combine(byte) }
        self.combine(0xFF)
    }

    mutating func combine(_ byte: UInt8) {
        self.value = (self.value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }

    static func of(_ strings: String...) -> UInt64 {
        var hash = StableHash()
        for string in strings { hash.combine(string) }
        return hash.value
    }
}
