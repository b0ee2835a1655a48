/// CRC-32 (ISO-HDLC, as PNG chunks use) and Adler-32 (as zlib streams use).
enum Checksums {
    private static let crcTable: [UInt32] = (0..<256).map { index -> UInt32 in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func crc32<Bytes: Collection<UInt8>>(_ bytes: Bytes, initial: UInt32 = 0) -> UInt32 {
        var crc = ~initial
        Self.crcTable.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return ~crc
    }

    static func adler32<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        var pending = 0
        for byte in bytes {
            a &+= UInt32(byte)
            b &+= a
            pending += 1
            if pending == 5552 {  // the largest run before b can overflow
                a %= 65521
                b %= 65521
                pending = 0
            }
        }
        return (b % 65521) << 16 | (a % 65521)
    }
}
