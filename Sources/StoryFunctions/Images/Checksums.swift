/// CRC-32 (ISO-HDLC, as PNG chunks use) and Adler-32 (as zlib streams use), over contiguous bytes
/// (a generic `Collection` loop is a hundred times slower in practice).
enum Checksums {
    private static let crcTable: [UInt32] = (0..<256).map { index -> UInt32 in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBufferPointer { self.crc32($0) } }
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 { bytes.withUnsafeBufferPointer { self.crc32($0) } }

    static func crc32(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        self.crcTable.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return ~crc
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 { bytes.withUnsafeBufferPointer { self.adler32($0) } }

    static func adler32(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        var index = 0
        while index < bytes.count {
            let end = min(index + 5552, bytes.count)  // the longest run before `b` could overflow
            while index < end {
                a &+= UInt32(bytes[index])
                b &+= a
                index += 1
            }
            a %= 65521
            b %= 65521
        }
        return b << 16 | a
    }
}
