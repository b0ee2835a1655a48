package import NIOCore

/// Reads a request's body from the connection's bytes as its head framed it (RFC 9112 §6, §7.1): a `Content-Length`
/// run of bytes, or chunks (``ChunkedDecoder``, whose sizes, extensions and trailer fields are read and dropped). It
/// takes the body from the front of the bytes, as slices, and leaves what follows it (a pipelined request) where it is.
package struct RequestBodyDecoder {
    package enum Part {
        case data(ByteBuffer)
        case end
    }

    private enum State {
        case length(remaining: Int)
        case chunked(ChunkedDecoder)
        case done
    }

    private var state: State

    /// The longest chunk-size line read (size, extensions): llhttp puts no bound on extensions, this reader does.
    package static let maxChunkLineBytes = ChunkedDecoder.maxChunkLineBytes

    package init(_ framing: RequestBodyFraming, maxTrailerBytes: Int) {
        switch framing {
        case .none: self.state = .length(remaining: 0)
        case .length(let length): self.state = .length(remaining: length)
        case .chunked: self.state = .chunked(ChunkedDecoder(maxTrailerBytes: maxTrailerBytes))
        }
    }

    /// The body is read to its end.
    package var isDone: Bool {
        if case .done = self.state { true } else { false }
    }

    /// The next part of the body from the front of `buffer`; nil when more bytes are needed (or the body has ended).
    package mutating func next(_ buffer: inout ByteBuffer) throws(RequestBodyError) -> Part? {
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
        case .chunked(var chunks):
            // Out of `state` while it reads, so that the decoder is not copied on write.
            self.state = .done
            defer { self.state = chunks.isDone ? .done : .chunked(chunks) }
            do {
                switch try chunks.next(&buffer) {
                case .data(let slice): return .data(slice)
                case .end: return .end
                case nil: return nil
                }
            } catch {
                throw RequestBodyError(error)
            }
        case .done:
            return nil
        }
    }
}

/// A request body whose framing cannot be read: a 400 `MALFORMED_REQUEST`, and the connection closes.
package struct RequestBodyError: Error {
    /// A short snake_case label for the access log.
    package let reason: String

    package init(reason: String) {
        self.reason = reason
    }

    init(_ failure: ChunkedDecoder.Failure) {
        switch failure {
        case .invalid(let description):
            self.reason = String(description.lowercased().map { $0 == " " || $0 == "-" ? "_" : $0 })
        case .trailersTooLarge:
            self.reason = "trailers_too_large"
        }
    }
}
