/// The byte classes of RFC 9110's grammar that every reader here uses.
enum HTTPByte {
    /// `tchar` (§5.6.2), as two bit masks over 0x00–0x7F.
    @inline(__always)
    static func isToken(_ byte: UInt8) -> Bool {
        if byte < 64 {
            return (0x03ff_6cfa_0000_0000 as UInt64) >> UInt64(byte) & 1 == 1
        } else if byte < 128 {
            return (0x57ff_ffff_c7ff_fffe as UInt64) >> UInt64(byte &- 64) & 1 == 1
        }
        return false
    }

    /// A field-value byte (§5.5): HTAB, SP, VCHAR, obs-text.
    @inline(__always)
    static func isFieldValue(_ byte: UInt8) -> Bool {
        byte == ASCII.htab || (byte >= ASCII.sp && byte != 0x7F)
    }

    /// Optional whitespace (§5.6.3): SP or HTAB.
    @inline(__always)
    static func isOWS(_ byte: UInt8) -> Bool {
        byte == ASCII.sp || byte == ASCII.htab
    }
}

/// The ASCII bytes the readers name.
enum ASCII {
    static var htab: UInt8 { 0x09 }
    static var lf: UInt8 { 0x0A }
    static var cr: UInt8 { 0x0D }
    static var sp: UInt8 { 0x20 }
    static var comma: UInt8 { 0x2C }
    static var colon: UInt8 { 0x3A }
    static var semicolon: UInt8 { 0x3B }
}
