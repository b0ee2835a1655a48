/// A zlib stream (RFC 1950) of one deflate block with the fixed Huffman codes (RFC 1951 §3.2.6), written from
/// runs of RGB pixels: each run is its first pixel as three literals and then a copy at distance 3 for the rest.
/// A picture of flat shapes compresses to a few bytes a run, and costs time per run, not per pixel (the Adler-32
/// of a run is computed in closed form).
struct RunLengthDeflate {
    private var bits = BitWriter()
    private var adler = Adler32()

    init() {
        self.bits.bytes = [0x78, 0x01]  // deflate, 32 KiB window, no dictionary, fastest (31 divides 0x7801)
        self.bits.write(0b011, count: 3)  // BFINAL = 1, BTYPE = 01 (fixed Huffman)
    }

    /// One byte as a literal (a row's filter type).
    mutating func literal(_ byte: UInt8) {
        self.bits.writeLiteral(Int(byte))
        self.adler.add(byte)
    }

    /// `count` pixels of one colour.
    mutating func run(_ red: UInt8, _ green: UInt8, _ blue: UInt8, count: Int) {
        guard count > 0 else { return }
        self.literal(red)
        self.literal(green)
        self.literal(blue)
        var remaining = (count - 1) * 3  // a multiple of 3, so every piece is at least 3 (the shortest match)
        while remaining > 0 {
            let length = min(258, remaining)
            self.bits.writeLength(length)
            self.bits.writeReversed(2, count: 5)  // distance code 2: distance 3, no extra bits
            remaining -= length
        }
        self.adler.add(repeating: (red, green, blue), times: count - 1)
    }

    /// The end-of-block code, padding to a byte, and the Adler-32 of everything written.
    consuming func finish() -> [UInt8] {
        self.bits.writeLiteral(256)
        self.bits.flush()
        self.bits.bytes.appendBigEndian(self.adler.value)
        return self.bits.bytes
    }
}

/// Bits packed least significant first, as deflate stores them.
private struct BitWriter {
    var bytes: [UInt8] = []
    private var buffer: UInt64 = 0
    private var count = 0

    /// `count` bits of `value`, least significant first (deflate's header and extra bits).
    mutating func write(_ value: UInt32, count: Int) {
        self.buffer |= UInt64(value) << UInt64(self.count)
        self.count += count
        while self.count >= 8 {
            self.bytes.append(UInt8(truncatingIfNeeded: self.buffer))
            self.buffer >>= 8
            self.count -= 8
        }
    }

    /// A Huffman code: its bits go most significant first.
    mutating func writeReversed(_ code: UInt32, count: Int) {
        var reversed: UInt32 = 0
        for bit in 0..<count { reversed |= (code >> UInt32(bit) & 1) << UInt32(count - 1 - bit) }
        self.write(reversed, count: count)
    }

    /// A literal/length symbol (0...287) in the fixed code.
    mutating func writeLiteral(_ symbol: Int) {
        switch symbol {
        case 0...143: self.writeReversed(UInt32(0x30 + symbol), count: 8)
        case 144...255: self.writeReversed(UInt32(0x190 + symbol - 144), count: 9)
        case 256...279: self.writeReversed(UInt32(symbol - 256), count: 7)
        default: self.writeReversed(UInt32(0xC0 + symbol - 280), count: 8)
        }
    }

    /// Length base values of the length symbols 257...285, and their extra bits.
    private static let lengthBases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtraBits = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]

    /// A match length (3...258): its symbol, then its extra bits.
    mutating func writeLength(_ length: Int) {
        let index = Self.lengthBases.lastIndex { $0 <= length }!
        self.writeLiteral(257 + index)
        let extra = Self.lengthExtraBits[index]
        if extra > 0 { self.write(UInt32(length - Self.lengthBases[index]), count: extra) }
    }

    /// The last bits, padded with zeros to a whole byte.
    mutating func flush() {
        if self.count > 0 { self.write(0, count: 8 - self.count) }
    }
}

/// Adler-32 (RFC 1950 §8.2), one byte at a time or a repeated three-byte pattern at once.
struct Adler32 {
    private static let modulus: UInt64 = 65521
    private var a: UInt64 = 1
    private var b: UInt64 = 0

    var value: UInt32 { UInt32(self.b << 16 | self.a) }

    mutating func add(_ byte: UInt8) {
        self.a = (self.a + UInt64(byte)) % Self.modulus
        self.b = (self.b + self.a) % Self.modulus
    }

    /// The bytes `pattern` repeated `times` times. Over n = 3m bytes x₁…xₙ, a grows by Σxᵢ and b by n·a₀ +
    /// Σ(n − i + 1)·xᵢ, which for the pattern (p₀, p₁, p₂) is T·3m(m + 1)/2 − m·(p₁ + 2p₂), with T = p₀ + p₁ + p₂.
    mutating func add(repeating pattern: (UInt8, UInt8, UInt8), times: Int) {
        guard times > 0 else { return }
        precondition(times <= 1 << 24, "runs are at most a row long")
        let m = UInt64(times)
        let (p0, p1, p2) = (UInt64(pattern.0), UInt64(pattern.1), UInt64(pattern.2))
        let total = p0 + p1 + p2
        let n = (3 * m) % Self.modulus
        let grows = (total * ((3 * m * (m + 1) / 2) % Self.modulus)) % Self.modulus
        let shrinks = (m * (p1 + 2 * p2)) % Self.modulus
        self.b = (self.b + n * self.a + grows + Self.modulus - shrinks) % Self.modulus
        self.a = (self.a + m * total) % Self.modulus
    }
}
