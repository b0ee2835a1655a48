/// Redis Cluster's key-to-slot function: CRC16 (XMODEM) of the key, or of its hash tag, modulo 16384.
///
/// The hash tag is the text between the first `{` and the first `}` after it, when that text is not empty; keys
/// with the same tag share a slot (Redis Cluster specification, "Hash tags").
enum ClusterKeySlot {
    /// Slots in a Redis Cluster.
    static let count = 16384

    /// The slot of `key`.
    static func slot(of key: String) -> Int {
        var key = key
        return key.withUTF8 { Self.slot(ofBytes: $0) }
    }

    /// The slot of a key given as its UTF-8 bytes.
    static func slot(ofBytes key: UnsafeBufferPointer<UInt8>) -> Int {
        let hashed = Self.hashedRange(key)
        return Int(Self.crc16(UnsafeBufferPointer(rebasing: key[hashed])) & 0x3FFF)
    }

    /// The part of `key` that is hashed: its hash tag, or all of it.
    static func hashedRange(_ key: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        guard let open = key.firstIndex(of: UInt8(ascii: "{")),
            let close = key[(open + 1)...].firstIndex(of: UInt8(ascii: "}")),
            close > open + 1
        else { return 0..<key.count }
        return (open + 1)..<close
    }

    /// CRC16-CCITT (XMODEM): polynomial 0x1021, initial value 0, no reflection; "123456789" gives 0x31C3.
    static func crc16(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
            }
        }
        return crc
    }

    private static let table: [UInt16] = (0..<256).map { index in
        var crc = UInt16(index) << 8
        for _ in 0..<8 {
            crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
        }
        return crc
    }
}
