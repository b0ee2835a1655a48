package import NIOCore

/// Reads a chunked body (RFC 9112 §7.1): chunk-size lines (extensions checked and dropped), the data as slices of
/// the bytes, the CRLF after each chunk, trailer fields (checked, counted against a limit, and dropped), up to the
/// empty line that ends the body. The one chunk reader of request bodies (``RequestBodyDecoder``) and upstream
/// answers (``UpstreamResponseParser``).
package struct ChunkedDecoder {
    package enum Part {
        /// Chunk data, a slice of the bytes read.
        case data(ByteBuffer)
        /// The body's last byte (the empty line after the trailers) is read.
        case end
    }

    /// Why the body cannot be read. After one the decoder is unusable, and the connection must close.
    package enum Failure: Error, Equatable {
        /// The bytes are not a chunked body; the string says what was wrong.
        case invalid(String)
        /// The trailer section is over its limit.
        case trailersTooLarge
    }

    private enum State {
        /// Expecting the first hex digit of a chunk-size line.
        case sizeStart
        /// Reading hex digits.
        case size
        /// Whitespace after the size; only `;` may follow.
        case sizeBWS
        /// Inside chunk extensions, up to CR.
        case ext
        /// CR of the chunk-size line seen; LF must follow.
        case sizeLF
        /// Chunk data; this many bytes are still to come.
        case data(Int)
        /// Chunk data complete; CR must follow.
        case dataCR
        /// CR after chunk data seen; LF must follow.
        case dataLF
        /// At the start of a trailer line (or the final empty line).
        case trailerLineStart
        /// Inside a trailer field name.
        case trailerName
        /// Inside a trailer field value, up to CR.
        case trailerValue
        /// CR of a trailer field line seen; LF must follow.
        case trailerLF
        /// CR of the final empty line seen; LF must follow.
        case lastLF
        /// The body has ended.
        case done
    }

    private enum Outcome {
        case needMore
        case data
        case end
        case error(Failure)
    }

    /// The longest chunk-size line read (size and extensions): llhttp puts no bound on extensions, this reader does.
    package static let maxChunkLineBytes = 4096

    private let maxTrailerBytes: Int
    private var state = State.sizeStart
    // Framing read across calls.
    private var lineBytes = 0
    private var digits = 0
    private var size = 0
    private var trailerBytes = 0

    /// - Parameter maxTrailerBytes: the most bytes of trailer section read (the final empty line included).
    package init(maxTrailerBytes: Int) {
        self.maxTrailerBytes = maxTrailerBytes
    }

    /// Whether the body has been read to its end.
    package var isDone: Bool {
        if case .done = self.state { true } else { false }
    }

    /// The next part of the body from the front of `buffer` (moving its reader index); nil when more bytes are
    /// needed, or after the end. Bytes after the body stay in `buffer`.
    package mutating func next(_ buffer: inout ByteBuffer) throws(Failure) -> Part? {
        while true {
            switch self.state {
            case .done:
                return nil
            case .data(let remaining):
                let count = min(remaining, buffer.readableBytes)
                if count == 0 { return nil }
                let slice = buffer.readSlice(length: count)!
                self.state = count == remaining ? .dataCR : .data(remaining - count)
                return .data(slice)
            default:
                if buffer.readableBytes == 0 { return nil }
                let (consumed, outcome) = buffer.withUnsafeReadableBytes { raw in
                    self.frame(raw.assumingMemoryBound(to: UInt8.self))
                }
                buffer.moveReaderIndex(forwardBy: consumed)
                switch outcome {
                case .needMore: return nil
                case .data: continue
                case .end: return .end
                case .error(let failure): throw failure
                }
            }
        }
    }

    /// Runs the chunked-framing state machine (chunk-size lines, CRLF after data, trailers) over
    /// `p` until chunk data starts, the message ends, or the bytes run out.
    private mutating func frame(_ p: UnsafeBufferPointer<UInt8>) -> (Int, Outcome) {
        var st = self.state
        var i = 0
        let count = p.count
        var lineBytes = self.lineBytes
        var digits = self.digits
        var size = self.size
        var trailer = self.trailerBytes
        let maxTrailer = self.maxTrailerBytes
        var outcome = Outcome.needMore

        scan: while i < count {
            let byte = p[i]
            i += 1
            switch st {
            case .sizeStart, .size, .sizeBWS, .ext, .sizeLF:
                lineBytes += 1
                if lineBytes > Self.maxChunkLineBytes {
                    outcome = .error(.invalid("chunk-size line too long"))
                    break scan
                }
            case .trailerLineStart, .trailerName, .trailerValue, .trailerLF, .lastLF:
                trailer += 1
                if trailer > maxTrailer {
                    outcome = .error(.trailersTooLarge)
                    break scan
                }
            case .data, .dataCR, .dataLF, .done:
                break
            }

            switch st {
            case .sizeStart:
                guard let value = HexDigit.value(byte).map(Int.init) else {
                    outcome = .error(.invalid("invalid chunk size"))
                    break scan
                }
                digits = 1
                size = value
                st = .size
            case .size:
                if let value = HexDigit.value(byte).map(Int.init) {
                    digits += 1
                    guard digits <= 15 else {
                        outcome = .error(.invalid("chunk size too large"))
                        break scan
                    }
                    size = size << 4 | value
                } else if byte == ASCII.semicolon {
                    st = .ext
                } else if byte == ASCII.cr {
                    st = .sizeLF
                } else if HTTPByte.isOWS(byte) {
                    st = .sizeBWS
                } else {
                    outcome = .error(.invalid("invalid chunk size"))
                    break scan
                }
            case .sizeBWS:
                if byte == ASCII.semicolon {
                    st = .ext
                } else if !HTTPByte.isOWS(byte) {
                    outcome = .error(.invalid("invalid chunk size"))
                    break scan
                }
            case .ext:
                if byte == ASCII.cr {
                    st = .sizeLF
                } else if !HTTPByte.isFieldValue(byte) {
                    outcome = .error(.invalid("invalid byte in chunk extension"))
                    break scan
                }
            case .sizeLF:
                guard byte == ASCII.lf else {
                    outcome = .error(.invalid("bare CR in chunk-size line"))
                    break scan
                }
                lineBytes = 0
                if size == 0 {
                    trailer = 0
                    st = .trailerLineStart
                } else {
                    st = .data(size)
                    outcome = .data
                    break scan
                }
            case .data:
                // Not reached: data is consumed by the caller as slices.
                i -= 1
                outcome = .data
                break scan
            case .dataCR:
                guard byte == ASCII.cr else {
                    outcome = .error(.invalid("missing CRLF after chunk data"))
                    break scan
                }
                st = .dataLF
            case .dataLF:
                guard byte == ASCII.lf else {
                    outcome = .error(.invalid("missing CRLF after chunk data"))
                    break scan
                }
                lineBytes = 0
                digits = 0
                size = 0
                st = .sizeStart
            case .trailerLineStart:
                if byte == ASCII.cr {
                    st = .lastLF
                } else if HTTPByte.isToken(byte) {
                    st = .trailerName
                } else if HTTPByte.isOWS(byte) {
                    outcome = .error(.invalid("obsolete line folding in trailer"))
                    break scan
                } else {
                    outcome = .error(.invalid("invalid trailer field name"))
                    break scan
                }
            case .trailerName:
                if byte == ASCII.colon {
                    st = .trailerValue
                } else if !HTTPByte.isToken(byte) {
                    outcome = .error(.invalid("invalid trailer field name"))
                    break scan
                }
            case .trailerValue:
                if byte == ASCII.cr {
                    st = .trailerLF
                } else if !HTTPByte.isFieldValue(byte) {
                    outcome = .error(.invalid("invalid byte in trailer field value"))
                    break scan
                }
            case .trailerLF:
                guard byte == ASCII.lf else {
                    outcome = .error(.invalid("bare CR in trailer"))
                    break scan
                }
                st = .trailerLineStart
            case .lastLF:
                guard byte == ASCII.lf else {
                    outcome = .error(.invalid("bare CR in trailer"))
                    break scan
                }
                st = .done
                outcome = .end
                break scan
            case .done:
                i -= 1
                break scan
            }
        }

        self.lineBytes = lineBytes
        self.digits = digits
        self.size = size
        self.trailerBytes = trailer
        self.state = st
        return (i, outcome)
    }
}
