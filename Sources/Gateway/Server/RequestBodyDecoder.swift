import NIOCore

/// Reads a request's body from the connection's bytes as its head framed it (RFC 9112 §6, §7.1): a `Content-Length`
/// run of bytes, or chunks whose sizes, extensions and trailer fields it reads and drops. It takes the body from the
/// front of the bytes, as slices, and leaves what follows it (a pipelined request) where it is.
struct RequestBodyDecoder {
    enum Part {
        case data(ByteBuffer)
        case end
    }

    private enum State {
        case length(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        /// The CRLF after a chunk's data.
        case chunkDataEnd
        /// Trailer field lines until the empty one; `bytes` read so far.
        case trailers(bytes: Int)
        case done
    }

    private var state: State
    private let maxTrailerBytes: Int

    /// The longest chunk-size line read (size, extensions): llhttp puts no bound on extensions, this reader does.
    static let maxChunkLineBytes = 4096

    init(_ framing: RequestBodyFraming, maxTrailerBytes: Int) {
        switch framing {
        case .none: self.state = .length(remaining: 0)
        case .length(let length): self.state = .length(remaining: length)
        case .chunked: self.state = .chunkSize
        }
        self.maxTrailerBytes = maxTrailerBytes
    }

    /// The body is read to its end.
    var isDone: Bool {
        if case .done = self.state { true } else { false }
    }

    /// The next part of the body from the front of `buffer`; nil when more bytes are needed (or the body has ended).
    mutating func next(_ buffer: inout ByteBuffer) throws(RequestBodyError) -> Part? {
        while true {
            switch self.state {
            case .length(let remaining):
                guard remaining > 0 else {
                    self.state = .done
                    return .end
                }
                guard buffer.readableBytes > 0 else { return nil }
                let count = min(remaining, buffer.readableBytes)
                self.state = .length(remaining: remaining - count)
                return .data(buffer.readSlice(length: count)!)
            case .chunkSize:
                guard let line = try Self.line(&buffer, max: Self.maxChunkLineBytes) else { return nil }
                let size = try Self.chunkSize(line)
                self.state = size == 0 ? .trailers(bytes: 0) : .chunkData(remaining: size)
            case .chunkData(let remaining):
                guard buffer.readableBytes > 0 else { return nil }
                let count = min(remaining, buffer.readableBytes)
                self.state = count == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - count)
                return .data(buffer.readSlice(length: count)!)
            case .chunkDataEnd:
                guard buffer.readableBytes >= 2 else { return nil }
                guard buffer.readInteger(as: UInt16.self) == 0x0D0A else { throw RequestBodyError(reason: "chunk_data_end") }
                self.state = .chunkSize
            case .trailers(let bytes):
                guard let line = try Self.line(&buffer, max: self.maxTrailerBytes - bytes) else { return nil }
                guard line.readableBytes > 0 else {
                    self.state = .done
                    return .end
                }
                self.state = .trailers(bytes: bytes + line.readableBytes + 2)
            case .done:
                return nil
            }
        }
    }

    /// A line ending in CRLF taken from `buffer` (without its CRLF); nil when none is there yet.
    private static func line(_ buffer: inout ByteBuffer, max: Int) throws(RequestBodyError) -> ByteBuffer? {
        let view = buffer.readableBytesView
        guard let cr = view.firstIndex(where: { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }) else {
            guard view.count <= max else { throw RequestBodyError(reason: "chunk_line_too_long") }
            return nil
        }
        let length = cr - view.startIndex
        guard length <= max, view[cr] == UInt8(ascii: "\r") else { throw RequestBodyError(reason: "chunk_line") }
        guard cr + 1 < view.endIndex else { return nil }
        guard view[cr + 1] == UInt8(ascii: "\n") else { throw RequestBodyError(reason: "chunk_line") }
        let line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 2)
        return line
    }

    /// `chunk-size [ chunk-ext ]` (RFC 9112 §7.1.1): hex digits, then optional whitespace and `;` extensions.
    private static func chunkSize(_ line: ByteBuffer) throws(RequestBodyError) -> Int {
        let view = line.readableBytesView
        var index = view.startIndex
        var size = 0
        while index < view.endIndex, let digit = HexDigit.value(view[index]) {
            guard size <= (Int.max - 15) / 16 else { throw RequestBodyError(reason: "chunk_size_too_large") }
            size = size * 16 + Int(digit)
            index += 1
        }
        guard index > view.startIndex else { throw RequestBodyError(reason: "chunk_size") }
        while index < view.endIndex, view[index] == UInt8(ascii: " ") || view[index] == UInt8(ascii: "\t") { index += 1 }
        guard index == view.endIndex || view[index] == UInt8(ascii: ";") else { throw RequestBodyError(reason: "chunk_size") }
        // Extensions are dropped; their bytes must still be field-value bytes (no controls).
        for byte in view[index...] where byte != UInt8(ascii: "\t") && (byte < 0x20 || byte == 0x7F) {
            throw RequestBodyError(reason: "chunk_extension")
        }
        return size
    }
}

/// A request body whose framing cannot be read: a 400 `MALFORMED_REQUEST`, and the connection closes.
struct RequestBodyError: Error {
    /// A short label for the access log.
    let reason: String
}
