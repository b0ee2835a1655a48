/// ASCII hexadecimal digits, either case (RFC 5234's HEXDIG), as percent-encoding (RFC 3986 §2.1) and chunk sizes
/// (RFC 9112 §7.1) write them.
package enum HexDigit {
    /// The digit's value, 0–15; nil for any other byte.
    @inline(__always)
    package static func value(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }
}
