/// SplitMix64 (Steele, Lea and Flood): a small, fast, seedable generator; the same seed gives the same sequence on
/// every platform, so a failing case reproduces from its seed (the codec fuzz, the edge fuzz, the RESP reader).
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) {
        self.state = seed
    }

    public mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 0..<bound.
    public mutating func below(_ bound: Int) -> Int {
        Int(self.next() % UInt64(max(bound, 1)))
    }

    /// True with probability `percent` / 100.
    public mutating func chance(_ percent: Int) -> Bool {
        self.below(100) < percent
    }

    public mutating func pick<T>(_ choices: [T]) -> T {
        choices[self.below(choices.count)]
    }

    /// Cut points that split `count` bytes into up to `pieces` non-empty pieces, ascending, without 0 and `count`.
    public mutating func splits(of count: Int, pieces: Int) -> [Int] {
        guard count > 1 else { return [] }
        var cuts = Set<Int>()
        for _ in 0..<max(0, pieces - 1) { cuts.insert(1 + self.below(count - 1)) }
        return cuts.sorted()
    }
}
