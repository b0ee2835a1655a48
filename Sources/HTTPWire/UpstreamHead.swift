package import HTTPTypes
package import NIOCore

/// A final upstream response head as ``UpstreamResponseParser`` read it: the status, and the field lines kept as
/// the bytes that arrived (every byte checked by the parser). The proxy passes the end-to-end lines on as bytes
/// (``forEachField(_:)``), without making an `HTTPField` of each, or hashing and re-validating names and values it
/// only copies; ``response`` builds the `HTTPResponse` for the other readers.
package struct UpstreamHead {
    package let status: HTTPResponse.Status
    /// The field lines, each `name ":" OWS value OWS CRLF`, as received.
    package let lines: ByteBuffer
    /// The one `Content-Length` value when the head repeated it (several lines, or a list): it passes on once, with
    /// that value (RFC 9110 §8.6).
    package let repeatedContentLength: Int?
    /// `Connection` names a field besides `keep-alive` and `close` (RFC 9110 §7.6.1): that field goes too.
    package let connectionNamesFields: Bool

    /// The head as an `HTTPResponse`, every field as received (a repeated `Content-Length` once).
    package var response: HTTPResponse {
        var fields = HTTPFields()
        self.forEachField { p, name, value, _ in
            let nameBytes = UnsafeBufferPointer(rebasing: p[name])
            guard let name = HTTPField.Name(String(decoding: nameBytes, as: UTF8.self)) else { return }
            let valueBytes = UnsafeBufferPointer(rebasing: p[value])
            // An ASCII value as a `String`; obs-text stays bytes, exactly as received.
            fields.append(
                valueBytes.allSatisfy { $0 < 0x80 }
                    ? HTTPField(name: name, value: String(decoding: valueBytes, as: UTF8.self))
                    : HTTPField(name: name, value: valueBytes)
            )
        }
        if let length = self.repeatedContentLength { fields[.contentLength] = String(length) }
        return HTTPResponse(status: self.status, headerFields: fields)
    }

    /// Calls `body` with each field line's name, value (without the surrounding whitespace) and whole line (through
    /// its CRLF), as ranges of `p`.
    package func forEachField(_ body: (UnsafeBufferPointer<UInt8>, Range<Int>, Range<Int>, Range<Int>) -> Void) {
        self.lines.withUnsafeReadableBytes { raw in
            let p = raw.assumingMemoryBound(to: UInt8.self)
            let count = p.count
            var position = 0
            // The parser checked every line: a token name, a colon, then value bytes (no CR) up to CRLF.
            while position < count {
                var colon = position
                while colon < count, p[colon] != UInt8(ascii: ":") { colon += 1 }
                var cr = colon
                while cr < count, p[cr] != UInt8(ascii: "\r") { cr += 1 }
                guard cr < count else { return }
                var valueStart = colon + 1
                while valueStart < cr, p[valueStart] == UInt8(ascii: " ") || p[valueStart] == UInt8(ascii: "\t") { valueStart += 1 }
                var valueEnd = cr
                while valueEnd > valueStart, p[valueEnd - 1] == UInt8(ascii: " ") || p[valueEnd - 1] == UInt8(ascii: "\t") { valueEnd -= 1 }
                body(p, position..<colon, valueStart..<valueEnd, position..<min(cr + 2, count))
                position = cr + 2
            }
        }
    }

    /// Whether two tokens are equal ignoring ASCII case (only letters fold: `^` and `~` stay apart).
    package static func equalsIgnoringCase(
        _ a: UnsafeBufferPointer<UInt8>, _ aRange: Range<Int>, _ b: UnsafeBufferPointer<UInt8>, _ bRange: Range<Int>
    ) -> Bool {
        guard aRange.count == bRange.count else { return false }
        var i = aRange.lowerBound
        var j = bRange.lowerBound
        while i < aRange.upperBound {
            if Self.lowercased(a[i]) != Self.lowercased(b[j]) { return false }
            i += 1
            j += 1
        }
        return true
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
