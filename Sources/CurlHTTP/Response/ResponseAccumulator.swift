/// Collects one transfer's response as libcurl delivers it: header lines, then body chunks.
///
/// Pure value type, fed by the C callbacks in `Curl.swift` on the driver thread.
struct ResponseAccumulator {
    /// The header fields of the latest header block (a new status line starts a new block).
    private(set) var headers: [CurlHeader] = []
    /// The body received so far.
    private(set) var body: [UInt8] = []
    /// Whether a body chunk was refused because it would pass `maxBodyBytes`.
    private(set) var exceededLimit = false

    /// The largest body accepted.
    let maxBodyBytes: Int

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    /// Takes one header line as libcurl hands it over (status line, field, blank line), CRLF included.
    mutating func appendHeaderLine(_ line: some Collection<UInt8>) {
        var bytes = Array(line)
        while let last = bytes.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: "\n") {
            bytes.removeLast()
        }
        guard let first = bytes.first else { return }  // the blank line ending a block
        if bytes.starts(with: "HTTP/".utf8) {
            // A new response: after `100 Continue`, a followed redirect, or a proxy's answer.
            self.headers.removeAll(keepingCapacity: true)
            return
        }
        if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            // Obsolete line folding: continues the previous field's value.
            guard !self.headers.isEmpty else { return }
            let more = Self.trimmed(bytes[...])
            self.headers[self.headers.count - 1].value += " " + String(decoding: more, as: UTF8.self)
            return
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = String(decoding: bytes[..<colon], as: UTF8.self)
        let value = String(decoding: Self.trimmed(bytes[(colon + 1)...]), as: UTF8.self)
        self.headers.append(CurlHeader(name, value))
    }

    /// Takes one body chunk; returns `false` (and takes nothing) if it would pass the limit.
    mutating func appendBody(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard self.body.count + chunk.count <= self.maxBodyBytes else {
            self.exceededLimit = true
            return false
        }
        self.body.append(contentsOf: chunk)
        return true
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }) else { return [] }
        let end = bytes.lastIndex(where: { !isSpace($0) })!
        return bytes[start...end]
    }
}
