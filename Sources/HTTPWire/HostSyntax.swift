/// The syntax of a `Host` value or an absolute-form target's authority.
package enum HostSyntax {
    /// `uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986 §3.2.2–3.2.3): an IP literal in brackets, or a registered
    /// name or IPv4 address of unreserved, sub-delims and percent-encoded characters, then an optional `:` and
    /// digits. Empty is valid (a target without an authority).
    package static func isValid(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { Self.isValid(UnsafeRawBufferPointer($0)) }
    }

    /// ``isValid(_:)-(String)`` on the value's bytes.
    package static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "[") {
            // IPv6address (with an RFC 6874 zone, `%25…`) or IPvFuture: unreserved, sub-delims, `:` and `%`.
            index += 1
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "]") {
                let byte = bytes[index]
                guard Self.isHostByte(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "%") else { return false }
                index += 1
            }
            guard index < bytes.count, index > start else { return false }
            index += 1
        } else {
            while index < bytes.count, bytes[index] != UInt8(ascii: ":") {
                if bytes[index] == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, HexDigit.value(bytes[index + 1]) != nil, HexDigit.value(bytes[index + 2]) != nil else { return false }
                    index += 3
                    continue
                }
                guard Self.isHostByte(bytes[index]) else { return false }
                index += 1
            }
        }
        guard index < bytes.count else { return true }
        // The port: `:` then digits (possibly none).
        guard bytes[index] == UInt8(ascii: ":") else { return false }
        index += 1
        while index < bytes.count {
            guard bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") else { return false }
            index += 1
        }
        return true
    }

    /// RFC 3986 unreserved and sub-delims.
    @inline(__always)
    private static func isHostByte(_ byte: UInt8) -> Bool {
        byte < 64 ? (0x2bff_7fd2_0000_0000 as UInt64) >> UInt64(byte) & 1 == 1 : byte < 128 && (0x47ff_fffe_87ff_fffe as UInt64) >> UInt64(byte - 64) & 1 == 1
    }
}
