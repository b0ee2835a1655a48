/// Unescaping of JSON string contents that `JSONParser` already validated.
enum JSONString {
    /// The UTF-8 bytes of validated string contents `raw` (the text between the quotes).
    static func unescape(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                index += 1
                continue
            }
            let escape = raw[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = UInt32(hexValue(raw, at: index))
                index += 4
                if scalar >= 0xD800, scalar < 0xDC00 {
                    let low = UInt32(hexValue(raw, at: index + 2))
                    index += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(scalar, to: &output)
            default: output.append(escape)  // " \ /
            }
        }
        return output
    }

    /// The string for validated contents `raw`.
    static func string(_ raw: UnsafeBufferPointer<UInt8>, hasEscapes: Bool) -> String {
        if !hasEscapes {
            return String(decoding: raw, as: UTF8.self)
        }
        return String(decoding: unescape(raw), as: UTF8.self)
    }

    /// The value of four hex digits at `index` (already validated).
    static func hexValue(_ raw: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt16 {
        var value: UInt16 = 0
        for offset in 0..<4 {
            value = value << 4 | UInt16(hexDigit(raw[index + offset]))
        }
        return value
    }

    /// 0...15 for a hex digit, 0xFF otherwise.
    @inline(__always)
    static func hexDigit(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
        default: 0xFF
        }
    }

    private static func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            output.append(UInt8(scalar))
        case ..<0x800:
            output.append(UInt8(0xC0 | scalar >> 6))
            output.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            output.append(UInt8(0xE0 | scalar >> 12))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(0xF0 | scalar >> 18))
            output.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
