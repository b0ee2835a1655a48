/// Field values read eight bytes at a time: both head parsers (``RawRequestHead``, ``UpstreamResponseParser``) skip
/// the visible-ASCII run of a value by words and check the rest byte by byte.
package enum VisibleASCII {
    /// The index of the first eight-byte word of `bytes[index..<end]` that holds a byte outside 0x20–0x7E, or of the
    /// last, incomplete word. Every byte skipped is a space or visible ASCII (a field-value byte; none is CR or LF).
    @inline(__always)
    package static func skip(_ bytes: UnsafeRawBufferPointer, from index: Int, to end: Int) -> Int {
        var index = index
        while index + 8 <= end {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            // Nonzero when some byte is below 0x20 (a borrow reaches its high bit), or at 0x7F or above.
            let below = (word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080
            let above = ((word &+ 0x0101_0101_0101_0101) | word) & 0x8080_8080_8080_8080
            guard below | above == 0 else { break }
            index += 8
        }
        return index
    }
}
