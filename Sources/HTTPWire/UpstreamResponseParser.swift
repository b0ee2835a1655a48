#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes
package import NIOCore

/// Errors thrown by `UpstreamResponseParser`. After any of them the parser is unusable and the
/// connection must be closed.
package enum UpstreamResponseError: Error, Equatable {
    /// Bytes arrived while no response was expected.
    case unexpectedBytes
    /// The upstream closed the connection in the middle of a message.
    case truncated
    /// A head (or a chunked trailer section) exceeded `maxHeadBytes`.
    case headTooLarge
    /// The bytes are not a valid HTTP/1.x response; the string says what was wrong.
    case invalid(String)
}

/// An incremental, strict HTTP/1.x response parser for a keep-alive upstream connection
/// (RFC 9112). Heads are parsed in place when they arrive in one buffer and copied into an
/// internal buffer only when split across reads; body bytes are emitted as zero-copy slices.
package struct UpstreamResponseParser {
    package enum Event {
        case head(UpstreamHead)
        case body(ByteBuffer)
        case end
    }

    // MARK: - State

    private enum State {
        /// No response expected.
        case idle
        /// Waiting for (the rest of) a status line and header section.
        case head
        /// Content-Length body; this many bytes are still to come.
        case fixedBody(Int)
        /// Body delimited by the upstream closing the connection.
        case closeBody
        /// Chunked body, read by `chunks`.
        case chunked
        /// A previous call threw; the parser is unusable.
        case failed(UpstreamResponseError)
    }

    private enum Framing {
        case none
        case fixed(Int)
        case chunked
        case close
    }

    private struct ParsedHead {
        /// nil for an interim (1xx) response, which is discarded.
        var status: HTTPResponse.Status?
        /// Where the field lines are in the head's bytes.
        var lines: Range<Int> = 0..<0
        var repeatedContentLength: Int?
        var connectionNamesFields = false
        var framing: Framing
        var keepAlive: Bool
        /// The final head, made by `consumeHead` from the above and the bytes.
        var head: UpstreamHead?
    }

    private enum HeadScan {
        case found(Int)
        case needMore
        case bareLF
        case bareCR
    }

    private let maxHeadBytes: Int
    private let maxHeaderCount: Int

    private var state: State = .idle
    private var currentIsHEAD = false
    /// After `.end`: whether the connection may carry another exchange.
    package private(set) var keepAlive = true

    // Head scanning across reads.
    private var headBuffer = ByteBuffer()
    private var scanLineLength = 0
    private var scanPrevCR = false
    private var scanLineCount = 0

    /// The chunked body being read (``State/chunked``).
    private var chunks = ChunkedDecoder(maxTrailerBytes: 0)

    package init(maxHeadBytes: Int = 64 * 1024, maxHeaderCount: Int = 100) {
        self.maxHeadBytes = max(0, maxHeadBytes)
        self.maxHeaderCount = max(0, maxHeaderCount)
    }

    // MARK: - API

    /// Before each request is sent: how the answer to it is framed (an answer to HEAD has no body).
    package mutating func expectResponse(toHEAD: Bool) {
        switch self.state {
        case .failed:
            return
        case .idle:
            self.startHead(toHEAD: toHEAD)
        case .head, .fixedBody, .closeBody, .chunked:
            // One exchange at a time: a second request before the first answer's end is the caller's error.
            _ = self.fail(.invalid("a response is already expected"))
        }
    }

    /// Consumes bytes from `buffer` (moves its reader index) and calls `emit` for each event, in
    /// order. Stops right after emitting `.end`, leaving any further bytes unread in `buffer`.
    /// Bytes fed when no response is expected throw `.unexpectedBytes`.
    package mutating func feed(_ buffer: inout ByteBuffer, _ emit: (Event) -> Void) throws(UpstreamResponseError) {
        while true {
            switch self.state {
            case .failed(let error):
                throw error

            case .idle:
                if buffer.readableBytes == 0 { return }
                throw self.fail(.unexpectedBytes)

            case .head:
                if buffer.readableBytes == 0 { return }
                guard let head = try self.consumeHead(&buffer) else { return }
                guard let response = head.head else {
                    // Interim response: discard and read the next head.
                    self.resetHeadScan()
                    continue
                }
                self.resetHeadScan()
                self.keepAlive = head.keepAlive
                emit(.head(response))
                switch head.framing {
                case .none:
                    self.finishMessage(emit)
                    return
                case .fixed(let length):
                    self.state = .fixedBody(length)
                case .chunked:
                    self.chunks = ChunkedDecoder(maxTrailerBytes: self.maxHeadBytes)
                    self.state = .chunked
                case .close:
                    self.state = .closeBody
                }

            case .fixedBody(let remaining):
                let count = min(remaining, buffer.readableBytes)
                if count == 0 { return }
                guard let slice = buffer.readSlice(length: count) else {
                    throw self.fail(.invalid("internal: slice out of range"))
                }
                emit(.body(slice))
                if count == remaining {
                    self.finishMessage(emit)
                    return
                }
                self.state = .fixedBody(remaining - count)
                return

            case .closeBody:
                let count = buffer.readableBytes
                if count == 0 { return }
                guard let slice = buffer.readSlice(length: count) else {
                    throw self.fail(.invalid("internal: slice out of range"))
                }
                emit(.body(slice))
                return

            case .chunked:
                let part: ChunkedDecoder.Part?
                do {
                    part = try self.chunks.next(&buffer)
                } catch {
                    let failure: UpstreamResponseError =
                        switch error {
                        case .invalid(let reason): .invalid(reason)
                        case .trailersTooLarge: .headTooLarge
                        }
                    throw self.fail(failure)
                }
                switch part {
                case .data(let slice):
                    emit(.body(slice))
                case .end:
                    self.finishMessage(emit)
                    return
                case nil:
                    return
                }
            }
        }
    }

    /// The upstream closed its side. A body delimited by the close ends here (emits `.end`); in
    /// the middle of any other message throws `.truncated`; when idle does nothing.
    package mutating func feedEOF(_ emit: (Event) -> Void) throws(UpstreamResponseError) {
        switch self.state {
        case .failed(let error):
            throw error
        case .idle:
            return
        case .closeBody:
            self.keepAlive = false
            self.state = .idle
            emit(.end)
        case .head, .fixedBody, .chunked:
            throw self.fail(.truncated)
        }
    }

    // MARK: - Transitions

    private mutating func fail(_ error: UpstreamResponseError) -> UpstreamResponseError {
        self.state = .failed(error)
        self.keepAlive = false
        self.headBuffer = ByteBuffer()
        return error
    }

    private mutating func startHead(toHEAD: Bool) {
        self.currentIsHEAD = toHEAD
        self.resetHeadScan()
        self.state = .head
    }

    private mutating func resetHeadScan() {
        self.scanLineLength = 0
        self.scanPrevCR = false
        self.scanLineCount = 0
        if self.headBuffer.capacity > 4096 {
            self.headBuffer = ByteBuffer()
        } else {
            self.headBuffer.clear()
        }
    }

    private mutating func finishMessage(_ emit: (Event) -> Void) {
        self.state = .idle
        emit(.end)
    }

    // MARK: - Head

    /// Finds the end of the head in `buffer` (continuing a scan begun on earlier reads) and parses
    /// it. Returns nil when more bytes are needed; all readable bytes have then been consumed.
    private mutating func consumeHead(_ buffer: inout ByteBuffer) throws(UpstreamResponseError) -> ParsedHead? {
        let buffered = self.headBuffer.readableBytes
        let room = max(0, self.maxHeadBytes - buffered)
        let available = buffer.readableBytes
        let window = min(available, room)

        var lineLength = self.scanLineLength
        var prevCR = self.scanPrevCR
        var lineCount = self.scanLineCount
        let scan = buffer.withUnsafeReadableBytes { raw in
            Self.scanHead(
                UnsafeBufferPointer(rebasing: raw.assumingMemoryBound(to: UInt8.self)[0..<window]),
                lineLength: &lineLength,
                prevCR: &prevCR,
                lineCount: &lineCount
            )
        }
        self.scanLineLength = lineLength
        self.scanPrevCR = prevCR
        self.scanLineCount = lineCount

        switch scan {
        case .bareLF:
            throw self.fail(.invalid("bare LF in head"))
        case .bareCR:
            throw self.fail(.invalid("bare CR in head"))
        case .needMore:
            if available >= room {
                throw self.fail(.headTooLarge)
            }
            guard var slice = buffer.readSlice(length: window) else {
                throw self.fail(.invalid("internal: slice out of range"))
            }
            self.headBuffer.writeBuffer(&slice)
            return nil
        case .found(let end):
            let isHEAD = self.currentIsHEAD
            let maxFields = self.maxHeaderCount
            let result: Result<ParsedHead, UpstreamResponseError>
            // The bytes the head is read from, at its first byte. Its field lines are a slice of them: copy-on-write
            // keeps the slice as it is, whatever the buffer is used for next.
            let source: ByteBuffer
            if buffered == 0 {
                // Usual case: the whole head is in this read; parse in place.
                source = buffer
                result = buffer.withUnsafeReadableBytes { raw in
                    Self.parseHead(
                        UnsafeBufferPointer(rebasing: raw.assumingMemoryBound(to: UInt8.self)[0..<end]),
                        isHEAD: isHEAD,
                        maxHeaderCount: maxFields,
                        lineCount: lineCount
                    )
                }
                buffer.moveReaderIndex(forwardBy: end)
            } else {
                guard var slice = buffer.readSlice(length: end) else {
                    throw self.fail(.invalid("internal: slice out of range"))
                }
                self.headBuffer.writeBuffer(&slice)
                source = self.headBuffer
                result = self.headBuffer.withUnsafeReadableBytes { raw in
                    Self.parseHead(
                        raw.assumingMemoryBound(to: UInt8.self),
                        isHEAD: isHEAD,
                        maxHeaderCount: maxFields,
                        lineCount: lineCount
                    )
                }
            }
            switch result {
            case .success(var head):
                if let status = head.status {
                    head.head = UpstreamHead(
                        status: status,
                        lines: source.getSlice(at: source.readerIndex + head.lines.lowerBound, length: head.lines.count) ?? ByteBuffer(),
                        repeatedContentLength: head.repeatedContentLength, connectionNamesFields: head.connectionNamesFields
                    )
                }
                return head
            case .failure(let error):
                throw self.fail(error)
            }
        }
    }

    /// Looks for the empty line ending the head. Every LF must follow a CR and every CR must be
    /// followed by LF. Returns the index just past the final LF.
    private static func scanHead(
        _ p: UnsafeBufferPointer<UInt8>,
        lineLength: inout Int,
        prevCR: inout Bool,
        lineCount: inout Int
    ) -> HeadScan {
        var i = 0
        let count = p.count
        while i < count {
            let byte = p[i]
            i += 1
            if byte == ASCII.lf {
                guard prevCR else { return .bareLF }
                if lineLength == 1 {
                    lineCount += 1
                    return .found(i)
                }
                lineCount += 1
                lineLength = 0
                prevCR = false
            } else {
                if prevCR { return .bareCR }
                prevCR = byte == ASCII.cr
                lineLength += 1
            }
        }
        return .needMore
    }

    /// Parses a complete head: `p` runs from the first byte of the status line through the LF of
    /// the empty line.
    private static func parseHead(
        _ p: UnsafeBufferPointer<UInt8>,
        isHEAD: Bool,
        maxHeaderCount: Int,
        lineCount: Int
    ) -> Result<ParsedHead, UpstreamResponseError> {
        let count = p.count

        // Status line.
        guard let statusLF = findLF(p, from: 0), statusLF >= 1, p[statusLF - 1] == ASCII.cr else {
            return .failure(.invalid("malformed status line"))
        }
        let statusEnd = statusLF - 1
        guard statusEnd >= 12,
            p[0] == UInt8(ascii: "H"), p[1] == UInt8(ascii: "T"), p[2] == UInt8(ascii: "T"),
            p[3] == UInt8(ascii: "P"), p[4] == UInt8(ascii: "/"), p[5] == UInt8(ascii: "1"),
            p[6] == UInt8(ascii: "."), p[7] == UInt8(ascii: "1") || p[7] == UInt8(ascii: "0"),
            p[8] == ASCII.sp
        else {
            return .failure(.invalid("malformed status line"))
        }
        let isHTTP11 = p[7] == UInt8(ascii: "1")
        let d0 = p[9] &- UInt8(ascii: "0")
        let d1 = p[10] &- UInt8(ascii: "0")
        let d2 = p[11] &- UInt8(ascii: "0")
        guard d0 <= 9, d1 <= 9, d2 <= 9 else {
            return .failure(.invalid("malformed status code"))
        }
        let code = Int(d0) * 100 + Int(d1) * 10 + Int(d2)
        var reasonStart = 12
        if statusEnd > 12 {
            guard p[12] == ASCII.sp else {
                return .failure(.invalid("malformed status line"))
            }
            reasonStart = 13
        }
        var reasonIsASCII = true
        var r = reasonStart
        while r < statusEnd {
            let byte = p[r]
            guard HTTPByte.isFieldValue(byte) else {
                return .failure(.invalid("invalid byte in reason phrase"))
            }
            if byte >= 0x80 { reasonIsASCII = false }
            r += 1
        }
        guard code >= 100, code <= 599 else {
            return .failure(.invalid("status code out of range"))
        }
        guard code != 101 else {
            return .failure(.invalid("unexpected 101 Switching Protocols"))
        }
        let isInterim = code < 200

        // Header section.
        var fieldCount = 0
        var connectionClose = false
        var connectionNamesFields = false
        var contentLengthPresent = false
        var contentLengthInvalid = false
        var contentLength = -1
        var contentLengthValues = 0
        var transferEncodingPresent = false
        var transferCodings = 0
        var transferEncodingNotChunked = false

        var pos = statusLF + 1
        while true {
            guard let lf = findLF(p, from: pos), lf > pos, p[lf - 1] == ASCII.cr else {
                return .failure(.invalid("malformed header line"))
            }
            let end = lf - 1
            if end == pos {
                // The empty line ends the head.
                guard lf + 1 == count else {
                    return .failure(.invalid("internal: head length mismatch"))
                }
                break
            }
            fieldCount += 1
            guard fieldCount <= maxHeaderCount else {
                return .failure(.invalid("too many header fields"))
            }
            let first = p[pos]
            guard first != ASCII.sp, first != ASCII.htab else {
                return .failure(.invalid("obsolete line folding"))
            }
            var nameEnd = pos
            while nameEnd < end, HTTPByte.isToken(p[nameEnd]) {
                nameEnd += 1
            }
            guard nameEnd > pos, nameEnd < end, p[nameEnd] == ASCII.colon else {
                return .failure(.invalid("invalid header field name"))
            }
            var valueStart = nameEnd + 1
            while valueStart < end, HTTPByte.isOWS(p[valueStart]) {
                valueStart += 1
            }
            var valueEnd = end
            while valueEnd > valueStart, HTTPByte.isOWS(p[valueEnd - 1]) {
                valueEnd -= 1
            }
            var v = VisibleASCII.skip(UnsafeRawBufferPointer(p), from: valueStart, to: valueEnd)
            while v < valueEnd {
                guard HTTPByte.isFieldValue(p[v]) else {
                    return .failure(.invalid("invalid byte in header field value"))
                }
                v += 1
            }

            let nameLength = nameEnd - pos
            if nameLength == 14, HTTPListValue.equalsLowercased(p, pos, "content-length") {
                contentLengthPresent = true
                HTTPListValue.forEachElement(p, valueStart, valueEnd) { s, e in
                    let length = e - s
                    guard length > 0, length <= 18 else {
                        contentLengthInvalid = true
                        return
                    }
                    var value = 0
                    var k = s
                    while k < e {
                        let digit = p[k] &- UInt8(ascii: "0")
                        guard digit <= 9 else {
                            contentLengthInvalid = true
                            return
                        }
                        value = value * 10 + Int(digit)
                        k += 1
                    }
                    contentLengthValues += 1
                    if contentLength < 0 {
                        contentLength = value
                    } else if contentLength != value {
                        contentLengthInvalid = true
                    }
                }
            } else if nameLength == 17, HTTPListValue.equalsLowercased(p, pos, "transfer-encoding") {
                transferEncodingPresent = true
                HTTPListValue.forEachElement(p, valueStart, valueEnd) { s, e in
                    transferCodings += 1
                    if !(e - s == 7 && HTTPListValue.equalsLowercased(p, s, "chunked")) {
                        transferEncodingNotChunked = true
                    }
                }
            } else if nameLength == 10, HTTPListValue.equalsLowercased(p, pos, "connection") {
                HTTPListValue.forEachElement(p, valueStart, valueEnd) { s, e in
                    if e - s == 5 && HTTPListValue.equalsLowercased(p, s, "close") {
                        connectionClose = true
                    } else if e > s, !(e - s == 10 && HTTPListValue.equalsLowercased(p, s, "keep-alive")) {
                        connectionNamesFields = true
                    }
                }
            }
            pos = lf + 1
        }

        // Both framings at once: a sign of response smuggling (RFC 9112 §6.3 ¶3), and the `Content-Length` would be
        // passed on to the client beside a body of another length. Refused, as SwiftNIO's parser refuses it.
        if transferEncodingPresent && contentLengthPresent {
            return .failure(.invalid("both transfer-encoding and content-length"))
        }
        // A `Content-Length` that is not one number is refused on every answer, those without a body too (1xx,
        // 204, 304, to HEAD): it would be passed on as received, and SwiftNIO's parser refuses it on any answer.
        if contentLengthPresent, contentLengthInvalid || contentLength < 0 {
            return .failure(.invalid("invalid content-length"))
        }
        if isInterim {
            return .success(ParsedHead(status: nil, framing: .none, keepAlive: false))
        }
        var keepAlive = isHTTP11 && !connectionClose
        let framing: Framing
        if isHEAD || code == 204 || code == 304 {
            framing = .none
        } else if transferEncodingPresent {
            guard transferCodings == 1, !transferEncodingNotChunked else {
                return .failure(.invalid("unsupported transfer-encoding"))
            }
            framing = .chunked
        } else if contentLengthPresent {
            framing = contentLength == 0 ? .none : .fixed(contentLength)
        } else {
            framing = .close
            keepAlive = false
        }

        let reason = reasonString(UnsafeBufferPointer(rebasing: p[reasonStart..<statusEnd]), isASCII: reasonIsASCII)
        return .success(
            ParsedHead(
                status: .init(code: code, reasonPhrase: reason), lines: (statusLF + 1)..<(count - 2),
                // The same length repeated (two lines, or a list): one field passes on, with that value (RFC 9110
                // §8.6: a recipient may accept the repetition only by replacing it with a single valid value).
                repeatedContentLength: contentLengthValues > 1 && !contentLengthInvalid ? contentLength : nil,
                connectionNamesFields: connectionNamesFields, framing: framing, keepAlive: keepAlive
            )
        )
    }

    /// Reason phrases are ISO Latin 1 (as `HTTPResponse.Status` documents): one scalar per byte.
    private static func reasonString(_ bytes: UnsafeBufferPointer<UInt8>, isASCII: Bool) -> String {
        if isASCII {
            return String(decoding: bytes, as: UTF8.self)
        }
        var string = ""
        string.unicodeScalars.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            string.unicodeScalars.append(Unicode.Scalar(byte))
        }
        return string
    }

    private static func findLF(_ p: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < p.count, let base = p.baseAddress, let found = memchr(base + start, Int32(ASCII.lf), p.count - start) else {
            return nil
        }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
}
