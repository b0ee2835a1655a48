/// Comma-separated list values (RFC 9110 §5.6.1) and their tokens, read in place from the bytes, without allocating:
/// the upstream answer's parser (`Content-Length`, `Transfer-Encoding`, `Connection`) and the hop-by-hop rules
/// (`Connection` on every answer) walk them the same way.
package enum HTTPListValue {
    /// Calls `body` with the bounds of each comma-separated element of `p[start..<end]`, optional whitespace
    /// trimmed. Empty elements are reported too (callers decide whether they are allowed).
    package static func forEachElement(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ body: (Int, Int) -> Void) {
        var elementStart = start
        while true {
            var elementEnd = elementStart
            while elementEnd < end, p[elementEnd] != UInt8(ascii: ",") {
                elementEnd += 1
            }
            var s = elementStart
            var e = elementEnd
            while s < e, HTTPByte.isOWS(p[s]) { s += 1 }
            while e > s, HTTPByte.isOWS(p[e - 1]) { e -= 1 }
            body(s, e)
            if elementEnd >= end { return }
            elementStart = elementEnd + 1
        }
    }

    /// Whether `p[start..<start + lower.count]` equals `lower` ignoring ASCII case; the caller checks that the element
    /// is exactly that long. `lower` must consist of lowercase letters and `-` only. The bytes compared must already
    /// be valid token or field-value bytes, which excludes CR (0x0D), the only other byte that OR-ing 0x20 maps onto
    /// `-`; for letters it maps exactly the uppercase form onto the lowercase one.
    package static func equalsLowercased(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ lower: StaticString) -> Bool {
        let length = lower.utf8CodeUnitCount
        guard start >= 0, start + length <= p.count else { return false }
        return lower.withUTF8Buffer { target in
            var k = 0
            while k < length {
                if p[start + k] | 0x20 != target[k] { return false }
                k += 1
            }
            return true
        }
    }
}
