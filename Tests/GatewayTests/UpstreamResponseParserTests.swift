import HTTPTypes
import NIOCore
import Testing

@testable import Gateway
@testable import HTTPWire

// MARK: - Helpers

/// An event reduced to comparable values. Field values are compared as raw bytes.
private enum Rec: Equatable, CustomStringConvertible {
    case head(code: Int, reason: String, fields: [Field])
    case body([UInt8])
    case end

    var description: String {
        switch self {
        case .head(let code, let reason, let fields):
            return "head(\(code) \(reason.debugDescription) \(fields))"
        case .body(let bytes):
            return "body(\(String(decoding: bytes, as: UTF8.self).debugDescription))"
        case .end:
            return "end"
        }
    }
}

private struct Field: Equatable, CustomStringConvertible {
    var name: String
    var value: [UInt8]

    init(_ name: String, _ value: String) {
        self.name = name
        self.value = Array(value.utf8)
    }

    init(_ name: String, bytes: [UInt8]) {
        self.name = name
        self.value = bytes
    }

    var description: String { "\(name): \(String(decoding: value, as: UTF8.self).debugDescription)" }
}

private func record(_ event: UpstreamResponseParser.Event) -> Rec {
    switch event {
    case .head(let head):
        let response = head.response
        let fields = response.headerFields.map { field in
            Field(field.name.rawName, bytes: field.withUnsafeBytesOfValue { Array($0) })
        }
        return .head(code: response.status.code, reason: response.status.reasonPhrase, fields: fields)
    case .body(let buffer):
        return .body(Array(buffer.readableBytesView))
    case .end:
        return .end
    }
}

/// Merges adjacent `.body` records so that differently split inputs compare equal.
private func merged(_ records: [Rec]) -> [Rec] {
    var out: [Rec] = []
    for rec in records {
        if case .body(let more) = rec, case .body(let previous)? = out.last {
            out[out.count - 1] = .body(previous + more)
        } else {
            out.append(rec)
        }
    }
    return out
}

private struct Outcome {
    var events: [Rec] = []
    var rawEvents: [Rec] = []
    var error: UpstreamResponseError?
    /// Bytes left unread after `.end` (in the buffer that carried it plus any later chunks).
    var leftover: [UInt8] = []
    var keepAlive = false
}

/// Feeds `chunks` (one `feed` call per chunk, re-feeding a chunk's remainder until it is used up
/// or `.end` is seen) into a fresh parser expecting one response; then `feedEOF` if `eof` and the
/// response has not ended.
private func parse(
    _ chunks: [[UInt8]],
    toHEAD: Bool = false,
    eof: Bool = false,
    maxHeadBytes: Int = 64 * 1024,
    maxHeaderCount: Int = 100
) -> Outcome {
    var parser = UpstreamResponseParser(maxHeadBytes: maxHeadBytes, maxHeaderCount: maxHeaderCount)
    parser.expectResponse(toHEAD: toHEAD)
    var outcome = Outcome()
    var ended = false
    let emit: (UpstreamResponseParser.Event) -> Void = { event in
        let rec = record(event)
        if case .body(let bytes) = rec, bytes.isEmpty {
            Issue.record("empty .body event")
        }
        if ended {
            Issue.record("event after .end")
        }
        if case .end = rec { ended = true }
        outcome.rawEvents.append(rec)
    }
    var index = 0
    while index < chunks.count {
        var buffer = ByteBuffer(bytes: chunks[index])
        index += 1
        do {
            var lastReadable = -1
            while buffer.readableBytes > 0 && !ended {
                // Each call must either make progress or finish.
                if buffer.readableBytes == lastReadable {
                    Issue.record("feed made no progress")
                    break
                }
                lastReadable = buffer.readableBytes
                try parser.feed(&buffer, emit)
            }
        } catch {
            outcome.error = error
            outcome.events = merged(outcome.rawEvents)
            return outcome
        }
        if ended {
            outcome.leftover = Array(buffer.readableBytesView) + chunks[index...].flatMap { $0 }
            break
        }
    }
    if eof && !ended {
        do {
            try parser.feedEOF(emit)
        } catch {
            outcome.error = error
        }
    }
    outcome.events = merged(outcome.rawEvents)
    outcome.keepAlive = parser.keepAlive
    return outcome
}

private func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }

private func oneByOne(_ input: [UInt8]) -> [[UInt8]] { input.map { [$0] } }

private func pieces(_ input: [UInt8], size: Int) -> [[UInt8]] {
    stride(from: 0, to: input.count, by: size).map { Array(input[$0..<min($0 + size, input.count)]) }
}

// MARK: - Fixtures

private let simpleResponse = bytes(
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\nX-Trace:  a b \t\r\n\r\nhello world"
)
private let simpleEvents: [Rec] = [
    .head(
        code: 200,
        reason: "OK",
        fields: [Field("Content-Type", "text/plain"), Field("Content-Length", "11"), Field("X-Trace", "a b")]
    ),
    .body(bytes("hello world")),
    .end,
]

private let chunkedResponse = bytes(
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n"
        + "5;name=value;flag\r\nhello\r\n"
        + "1 ; x=\"q;uoted\"\r\n \r\n"
        + "A\r\n0123456789\r\n"
        + "0;last\r\nX-Checksum: abc\r\nX-Other:\r\n\r\n"
)
private let chunkedEvents: [Rec] = [
    .head(code: 200, reason: "OK", fields: [Field("Transfer-Encoding", "Chunked")]),
    .body(bytes("hello 0123456789")),
    .end,
]

// MARK: - Tests

@Suite("UpstreamResponseParser")
struct UpstreamResponseParserTests {
    @Test func simpleContentLengthInOneBuffer() {
        let out = parse([simpleResponse])
        #expect(out.error == nil)
        #expect(out.events == simpleEvents)
        #expect(out.rawEvents.count == 3)
        #expect(out.leftover.isEmpty)
        #expect(out.keepAlive)
    }

    @Test func bodyIsAZeroCopySliceOfTheInput() throws {
        var parser = UpstreamResponseParser()
        parser.expectResponse(toHEAD: false)
        var buffer = ByteBuffer(bytes: simpleResponse)
        let inputBase = buffer.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
        var bodyBase: UInt = 0
        try parser.feed(&buffer) { event in
            if case .body(let body) = event {
                bodyBase = body.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
            }
        }
        let headLength = simpleResponse.count - 11
        #expect(bodyBase == inputBase + UInt(headLength))
    }

    @Test func simpleResponseByteByByte() {
        let out = parse(oneByOne(simpleResponse))
        #expect(out.error == nil)
        #expect(out.events == simpleEvents)
        #expect(out.rawEvents.filter { if case .body = $0 { return true } else { return false } }.count == 11)
        #expect(out.keepAlive)
    }

    @Test func simpleResponseInEveryTwoWaySplit() {
        for split in 0...simpleResponse.count {
            let out = parse([Array(simpleResponse[..<split]), Array(simpleResponse[split...])])
            #expect(out.error == nil, "split at \(split)")
            #expect(out.events == simpleEvents, "split at \(split)")
        }
    }

    @Test func fieldsKeepOrderSpellingAndRawBytes() {
        let input: [UInt8] =
            bytes("HTTP/1.1 200 OK\r\nx-b: 1\r\nX-A:2\r\nX-B:\t3 , 4\t \r\nEmpty:\r\nSet-Cookie: a\r\nSet-Cookie: b\r\nObs: ")
            + [0xE9, 0x80, 0xFF] + bytes("\r\nContent-Length: 0\r\n\r\n")
        let out = parse([input])
        #expect(out.error == nil)
        #expect(
            out.events == [
                .head(
                    code: 200,
                    reason: "OK",
                    fields: [
                        Field("x-b", "1"), Field("X-A", "2"), Field("X-B", "3 , 4"), Field("Empty", ""),
                        Field("Set-Cookie", "a"), Field("Set-Cookie", "b"), Field("Obs", bytes: [0xE9, 0x80, 0xFF]),
                        Field("Content-Length", "0"),
                    ]
                ), .end,
            ]
        )
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\n", 200, "OK"),
        ("HTTP/1.1 200\r\n", 200, ""),
        ("HTTP/1.1 200 \r\n", 200, ""),
        ("HTTP/1.1 404 Not\tFound  \r\n", 404, "Not\tFound  "),
        ("HTTP/1.0 599 x\r\n", 599, "x"),
        ("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\n", 201, "Created"),
    ])
    func statusLines(line: String, code: Int, reason: String) {
        let out = parse([bytes(line + "Content-Length: 0\r\n\r\n")])
        #expect(out.error == nil)
        #expect(out.events == [.head(code: code, reason: reason, fields: [Field("Content-Length", "0")]), .end])
    }

    @Test func reasonPhraseObsTextIsDecodedAsLatin1() {
        let input = bytes("HTTP/1.1 200 Ok") + [0xE9, 0xFF] + bytes("\r\nContent-Length: 0\r\n\r\n")
        let out = parse([input])
        #expect(out.error == nil)
        #expect(out.events.first == .head(code: 200, reason: "Ok\u{E9}\u{FF}", fields: [Field("Content-Length", "0")]))
    }

    @Test func chunkedWithExtensionsAndTrailers() {
        let out = parse([chunkedResponse])
        #expect(out.error == nil)
        #expect(out.events == chunkedEvents)
        #expect(out.leftover.isEmpty)
        #expect(out.keepAlive)
    }

    @Test func chunkedByteByByte() {
        let out = parse(oneByOne(chunkedResponse))
        #expect(out.error == nil)
        #expect(out.events == chunkedEvents)
        #expect(out.keepAlive)
    }

    @Test func chunkedInEveryTwoWaySplit() {
        for split in 0...chunkedResponse.count {
            let out = parse([Array(chunkedResponse[..<split]), Array(chunkedResponse[split...])])
            #expect(out.error == nil, "split at \(split)")
            #expect(out.events == chunkedEvents, "split at \(split)")
        }
    }

    @Test func chunkDataIsEmittedAsItArrives() throws {
        var parser = UpstreamResponseParser()
        parser.expectResponse(toHEAD: false)
        var events: [Rec] = []
        var first = ByteBuffer(string: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc")
        try parser.feed(&first) { events.append(record($0)) }
        #expect(first.readableBytes == 0)
        #expect(events.count == 2)
        #expect(events.last == .body(bytes("abc")))
        var second = ByteBuffer(string: "defghijklmnop\r\n0\r\n\r\nHTTP")
        try parser.feed(&second) { events.append(record($0)) }
        #expect(merged(events).dropFirst() == [.body(bytes("abcdefghijklmnop")), .end])
        #expect(second.readableBytesView.elementsEqual(bytes("HTTP")))
    }

    @Test func interimResponsesAreDiscarded() {
        let input = bytes(
            "HTTP/1.1 100 Continue\r\n\r\n"
                + "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        )
        let expected: [Rec] = [
            .head(code: 200, reason: "OK", fields: [Field("Content-Length", "2")]), .body(bytes("ok")), .end,
        ]
        let whole = parse([input])
        #expect(whole.error == nil)
        #expect(whole.events == expected)
        let split = parse(oneByOne(input))
        #expect(split.error == nil)
        #expect(split.events == expected)
    }

    @Test func interimResponseHeadersAreStillValidated() {
        let out = parse([bytes("HTTP/1.1 100 Continue\r\nBad Name: x\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")])
        #expect(out.error == .invalid("invalid header field name"))
        #expect(out.events.isEmpty)
    }

    @Test func headAnswerWithContentLengthHasNoBody() {
        let input = bytes("HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n")
        let out = parse([input], toHEAD: true)
        #expect(out.error == nil)
        #expect(out.events == [.head(code: 200, reason: "OK", fields: [Field("Content-Length", "1234")]), .end])
        #expect(out.keepAlive)
        // The same head for a GET waits for the body.
        let get = parse([input])
        #expect(get.events.count == 1)
        #expect(get.error == nil)
    }

    @Test func headAnswerIgnoresTransferEncoding() {
        let out = parse([bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n")], toHEAD: true)
        #expect(out.error == nil)
        #expect(out.events.count == 2)
        #expect(out.events.last == .end)
    }

    /// Found by the differential fuzz (`ResponseCodecFuzzTests`): an answer without a body (to HEAD, 1xx, 204,
    /// 304) was read whatever its `Content-Length` said, where SwiftNIO's parser refuses it.
    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 0x2\r\n\r\n", true),
        ("HTTP/1.1 200 OK\r\nContent-Length: 18\r\nContent-Length: 17\r\n\r\n", true),
        ("HTTP/1.1 304 X\r\nContent-Length: 2\r\ncontent-length: 3\r\n\r\n", false),
        ("HTTP/1.1 204 X\r\nContent-Length: +10\r\n\r\n", false),
        ("HTTP/1.1 404 X\r\nContent-Length: 7,8\r\n\r\n", true),
        ("HTTP/1.1 199 X\r\ncontent-length: 7\r\nContent-Length: 6\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false),
        ("HTTP/1.1 100 X\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false),
    ])
    func bodylessAnswerWithInvalidContentLengthIsRefused(input: String, toHEAD: Bool) {
        let out = parse([bytes(input)], toHEAD: toHEAD)
        #expect(out.error != nil)
        #expect(out.events.isEmpty)
    }

    @Test(arguments: [204, 304])
    func noBodyStatusesIgnoreContentLength(code: Int) {
        let input = bytes("HTTP/1.1 \(code) X\r\nContent-Length: 5\r\n\r\nhello")
        let out = parse([input])
        #expect(out.error == nil)
        #expect(out.events == [.head(code: code, reason: "X", fields: [Field("Content-Length", "5")]), .end])
        #expect(out.leftover == bytes("hello"))
        #expect(out.keepAlive)
    }

    @Test func contentLengthZeroEndsRightAfterHead() {
        let out = parse([bytes("HTTP/1.1 200 OK\r\nContent-Length: 000\r\n\r\nnext")])
        #expect(out.error == nil)
        #expect(out.events.count == 2)
        #expect(out.leftover == bytes("next"))
    }

    @Test(arguments: ["5, 5", "5,5,   5", "005"])
    func repeatedEqualContentLengthsAreAccepted(value: String) {
        let out = parse([bytes("HTTP/1.1 200 OK\r\nContent-Length: \(value)\r\nContent-Length: 5\r\n\r\nhello")])
        #expect(out.error == nil)
        #expect(out.events.dropFirst() == [.body(bytes("hello")), .end])
        // Passed on as one field with the value (RFC 9110 §8.6), not as the repetition the client might refuse.
        #expect(out.events.first == .head(code: 200, reason: "OK", fields: [Field("Content-Length", "5")]))
    }

    @Test func closeDelimitedBodyEndsAtEOF() {
        let input = bytes("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nsome body")
        let out = parse(pieces(input, size: 4), eof: true)
        #expect(out.error == nil)
        #expect(
            out.events == [
                .head(code: 200, reason: "OK", fields: [Field("Content-Type", "text/plain")]),
                .body(bytes("some body")), .end,
            ]
        )
        #expect(!out.keepAlive)
    }

    @Test func closeDelimitedEmptyBody() {
        let out = parse([bytes("HTTP/1.1 200 OK\r\n\r\n")], eof: true)
        #expect(out.error == nil)
        #expect(out.events == [.head(code: 200, reason: "OK", fields: []), .end])
        #expect(!out.keepAlive)
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nTrailer: x\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n",
        "HTTP/1.1 100 Continue\r\n\r\n",
        "",
    ])
    func eofInTheMiddleOfAMessageIsTruncated(input: String) {
        let out = parse(input.isEmpty ? [] : [bytes(input)], eof: true)
        #expect(out.error == .truncated)
        #expect(!out.events.contains(.end))
    }

    @Test func eofWhenIdleDoesNothing() throws {
        var parser = UpstreamResponseParser()
        var events: [Rec] = []
        try parser.feedEOF { events.append(record($0)) }
        parser.expectResponse(toHEAD: false)
        var buffer = ByteBuffer(string: "HTTP/1.1 204 No Content\r\n\r\n")
        try parser.feed(&buffer) { events.append(record($0)) }
        try parser.feedEOF { events.append(record($0)) }
        #expect(events.count == 2)
    }

    @Test func pipelinedResponsesInOneBuffer() throws {
        var parser = UpstreamResponseParser()
        let second = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\ntwo\r\n0\r\n\r\n"
        var buffer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\none" + second)
        var events: [Rec] = []
        parser.expectResponse(toHEAD: false)
        try parser.feed(&buffer) { events.append(record($0)) }
        #expect(events == [.head(code: 200, reason: "OK", fields: [Field("Content-Length", "3")]), .body(bytes("one")), .end])
        #expect(buffer.readableBytesView.elementsEqual(second.utf8))
        #expect(parser.keepAlive)

        events = []
        parser.expectResponse(toHEAD: false)
        try parser.feed(&buffer) { events.append(record($0)) }
        #expect(
            events == [
                .head(code: 200, reason: "OK", fields: [Field("Transfer-Encoding", "chunked")]), .body(bytes("two")), .end,
            ]
        )
        #expect(buffer.readableBytes == 0)
    }

    @Test func bytesBeforeAnyExpectationAreUnexpected() {
        var parser = UpstreamResponseParser()
        var buffer = ByteBuffer(string: "HTTP/1.1 200 OK\r\n\r\n")
        #expect(throws: UpstreamResponseError.unexpectedBytes) { try parser.feed(&buffer) { _ in } }
        // Unusable afterwards.
        parser.expectResponse(toHEAD: false)
        #expect(throws: UpstreamResponseError.unexpectedBytes) { try parser.feed(&buffer) { _ in } }
        #expect(!parser.keepAlive)
    }

    @Test func bytesAfterEndAreUnexpected() throws {
        var parser = UpstreamResponseParser()
        parser.expectResponse(toHEAD: false)
        var buffer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naX")
        var ends = 0
        try parser.feed(&buffer) { if case .end = $0 { ends += 1 } }
        #expect(ends == 1)
        #expect(buffer.readableBytes == 1)
        var empty = ByteBuffer()
        try parser.feed(&empty) { _ in Issue.record("no events expected") }
        #expect(throws: UpstreamResponseError.unexpectedBytes) { try parser.feed(&buffer) { _ in } }
    }

    @Test func errorsAreSticky() {
        var parser = UpstreamResponseParser()
        parser.expectResponse(toHEAD: false)
        var bad = ByteBuffer(string: "HTTP/1.1 600 Nope\r\n\r\n")
        #expect(throws: UpstreamResponseError.invalid("status code out of range")) { try parser.feed(&bad) { _ in } }
        var good = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        #expect(throws: UpstreamResponseError.invalid("status code out of range")) { try parser.feed(&good) { _ in } }
        #expect(throws: UpstreamResponseError.invalid("status code out of range")) { try parser.feedEOF { _ in } }
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true),
        ("HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", true),
        ("HTTP/1.1 200 OK\r\nConnection: closed, xclose\r\nContent-Length: 0\r\n\r\n", true),
        ("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false),
        ("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", false),
        ("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", false),
        ("HTTP/1.1 200 OK\r\nConnection: Upgrade ,\tCLOSE \r\nContent-Length: 0\r\n\r\n", false),
        ("HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nconnection: Close\r\nContent-Length: 0\r\n\r\n", false),
        ("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n", false),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", true),
    ])
    func keepAlive(input: String, expected: Bool) {
        let out = parse([bytes(input)])
        #expect(out.error == nil)
        #expect(out.events.last == .end)
        #expect(out.keepAlive == expected)
    }

    /// Both framings: refused whichever comes first, whatever the request (RFC 9112 §6.3 ¶3). Passed on, the
    /// `Content-Length` would have gone to the client beside a body of another length.
    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", false),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 100\r\n\r\n2\r\nhi\r\n0\r\n\r\n", false),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", true),
    ])
    func bothTransferEncodingAndContentLengthAreRefused(input: String, toHEAD: Bool) {
        let out = parse([bytes(input)], toHEAD: toHEAD)
        #expect(out.error == .invalid("both transfer-encoding and content-length"))
        #expect(out.events.isEmpty)
        #expect(!out.keepAlive)
        let plain = parse([bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")], toHEAD: true)
        #expect(plain.keepAlive)
    }

    @Test func aSecondExpectationBeforeTheEndFailsTheParser() throws {
        var parser = UpstreamResponseParser()
        parser.expectResponse(toHEAD: false)
        parser.expectResponse(toHEAD: false)
        var buffer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na")
        #expect(throws: UpstreamResponseError.invalid("a response is already expected")) {
            try parser.feed(&buffer) { _ in }
        }
        #expect(!parser.keepAlive)
    }
    @Test func exactlyMaxHeaderCountFieldsAreAccepted() {
        let fields = (0..<100).map { "X-F\($0): v\r\n" }.joined()
        let out = parse([bytes("HTTP/1.1 204 No Content\r\n" + fields + "\r\n")])
        #expect(out.error == nil)
        if case .head(_, _, let parsed)? = out.events.first {
            #expect(parsed.count == 100)
        } else {
            Issue.record("no head")
        }
    }

    @Test func customMaxHeaderCount() {
        let input = bytes("HTTP/1.1 204 No Content\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n")
        #expect(parse([input], maxHeaderCount: 3).error == nil)
        #expect(parse([input], maxHeaderCount: 2).error == .invalid("too many header fields"))
    }

    /// The token check must agree with HTTPTypes' own field-name validation for every byte.
    @Test func fieldNameBytesAgreeWithHTTPTypes() {
        for byte in UInt8.min...UInt8.max where byte != UInt8(ascii: ":") {
            let input = bytes("HTTP/1.1 204 No Content\r\nX") + [byte] + bytes("Y: v\r\n\r\n")
            let accepted = parse([input]).error == nil
            let reference = HTTPField.Name(String(decoding: [0x58, byte, 0x59], as: UTF8.self)) != nil
            #expect(accepted == reference, "byte \(byte)")
        }
    }

    @Test func fieldValueBytes() {
        for byte in UInt8.min...UInt8.max {
            let input = bytes("HTTP/1.1 204 No Content\r\nX: a") + [byte] + bytes("b\r\n\r\n")
            let out = parse([input])
            let allowed = byte == 0x09 || (byte >= 0x20 && byte != 0x7F)
            if allowed {
                #expect(out.error == nil, "byte \(byte)")
                #expect(out.events.first == .head(code: 204, reason: "No Content", fields: [Field("X", bytes: [0x61, byte, 0x62])]))
            } else if byte == 0x0A {
                #expect(out.error == .invalid("bare LF in head"))
            } else if byte == 0x0D {
                #expect(out.error == .invalid("bare CR in head"))
            } else {
                #expect(out.error == .invalid("invalid byte in header field value"), "byte \(byte)")
            }
        }
    }

    // MARK: Invalid input

    struct InvalidCase: Sendable, CustomTestStringConvertible {
        var label: String
        var input: [UInt8]
        var error: UpstreamResponseError
        var testDescription: String { label }

        init(_ label: String, _ input: String, _ error: UpstreamResponseError) {
            self.label = label
            self.input = Array(input.utf8)
            self.error = error
        }

        init(_ label: String, bytes input: [UInt8], _ error: UpstreamResponseError) {
            self.label = label
            self.input = input
            self.error = error
        }
    }

    static let ok = "HTTP/1.1 200 OK\r\n"
    static let chunkedHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    static let statusLine = UpstreamResponseError.invalid("malformed status line")
    static let badName = UpstreamResponseError.invalid("invalid header field name")
    static let badValue = UpstreamResponseError.invalid("invalid byte in header field value")
    static let badTE = UpstreamResponseError.invalid("unsupported transfer-encoding")
    static let badCL = UpstreamResponseError.invalid("invalid content-length")
    static let badChunkSize = UpstreamResponseError.invalid("invalid chunk size")
    static let badChunkEnd = UpstreamResponseError.invalid("missing CRLF after chunk data")

    static let invalidCases: [InvalidCase] = [
        .init("version HTTP/2.0", "HTTP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n", statusLine),
        .init("version HTTP/1.2", "HTTP/1.2 200 OK\r\nContent-Length: 0\r\n\r\n", statusLine),
        .init("lowercase version", "http/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", statusLine),
        .init("version HTTP/1", "HTTP/1 200 OK\r\nContent-Length: 0\r\n\r\n", statusLine),
        .init("leading empty line", "\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", statusLine),
        .init("2-digit status", "HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n", .invalid("malformed status code")),
        .init("2-digit status, no reason", "HTTP/1.1 20\r\nContent-Length: 0\r\n\r\n", statusLine),
        .init("4-digit status", "HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n", statusLine),
        .init("double space before status", "HTTP/1.1  200 OK\r\nContent-Length: 0\r\n\r\n", .invalid("malformed status code")),
        .init("tab after status", "HTTP/1.1 200\tOK\r\nContent-Length: 0\r\n\r\n", statusLine),
        .init("status 600", "HTTP/1.1 600 Nope\r\nContent-Length: 0\r\n\r\n", .invalid("status code out of range")),
        .init("status 099", "HTTP/1.1 099 Nope\r\nContent-Length: 0\r\n\r\n", .invalid("status code out of range")),
        .init("status 101", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", .invalid("unexpected 101 Switching Protocols")),
        .init("CTL in reason", bytes: bytes("HTTP/1.1 200 O") + [0x01] + bytes("K\r\n\r\n"), .invalid("invalid byte in reason phrase")),
        .init("space before colon", ok + "Content-Length : 0\r\n\r\n", badName),
        .init("tab before colon", ok + "Content-Length\t: 0\r\n\r\n", badName),
        .init("obs-fold", ok + "X-A: b\r\n c\r\nContent-Length: 0\r\n\r\n", .invalid("obsolete line folding")),
        .init("obs-fold with tab", ok + "X-A: b\r\n\tc\r\nContent-Length: 0\r\n\r\n", .invalid("obsolete line folding")),
        .init("whitespace before first field", ok + " X-A: b\r\nContent-Length: 0\r\n\r\n", .invalid("obsolete line folding")),
        .init("bare LF after status line", "HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n", .invalid("bare LF in head")),
        .init("bare LF after field", ok + "Content-Length: 0\n\r\n", .invalid("bare LF in head")),
        .init("bare LF as empty line", ok + "Content-Length: 0\r\n\n", .invalid("bare LF in head")),
        .init("bare CR in value", ok + "X-A: b\rc\r\nContent-Length: 0\r\n\r\n", .invalid("bare CR in head")),
        .init("bare CR in status line", "HTTP/1.1 200 O\rK\r\nContent-Length: 0\r\n\r\n", .invalid("bare CR in head")),
        .init("CR CR LF", ok + "X-A: b\r\r\n\r\n", .invalid("bare CR in head")),
        .init("NUL in value", bytes: bytes(ok + "X-A: a") + [0x00] + bytes("b\r\n\r\n"), badValue),
        .init("DEL in value", bytes: bytes(ok + "X-A: a") + [0x7F] + bytes("b\r\n\r\n"), badValue),
        .init("ESC in value", bytes: bytes(ok + "X-A: a") + [0x1B] + bytes("b\r\n\r\n"), badValue),
        .init("non-token name (paren)", ok + "X(A): b\r\n\r\n", badName),
        .init("non-token name (at)", ok + "X@A: b\r\n\r\n", badName),
        .init("non-token name (obs-text)", bytes: bytes(ok + "X") + [0xC3, 0xA9] + bytes(": b\r\n\r\n"), badName),
        .init("empty name", ok + ": b\r\n\r\n", badName),
        .init("no colon", ok + "NoColon\r\n\r\n", badName),
        .init("TE gzip", ok + "Transfer-Encoding: gzip\r\n\r\n", badTE),
        .init("TE gzip, chunked", ok + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", badTE),
        .init("TE chunked, chunked", ok + "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n", badTE),
        .init("TE chunked on two lines", ok + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", badTE),
        .init("TE trailing comma", ok + "Transfer-Encoding: chunked,\r\n\r\n0\r\n\r\n", badTE),
        .init("TE empty", ok + "Transfer-Encoding:\r\n\r\n", badTE),
        .init("TE chunked with parameter", ok + "Transfer-Encoding: chunked;q=1\r\n\r\n0\r\n\r\n", badTE),
        .init("CL 5, 6", ok + "Content-Length: 5, 6\r\n\r\nhello!", badCL),
        .init("CL on two lines differ", ok + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", badCL),
        .init("CL -1", ok + "Content-Length: -1\r\n\r\n", badCL),
        .init("CL +5", ok + "Content-Length: +5\r\n\r\nhello", badCL),
        .init("CL 19 digits", ok + "Content-Length: 1000000000000000000\r\n\r\n", badCL),
        .init("CL 19 digits of zeros", ok + "Content-Length: 0000000000000000000\r\n\r\n", badCL),
        .init("CL empty", ok + "Content-Length:\r\n\r\n", badCL),
        .init("CL 5 5", ok + "Content-Length: 5 5\r\n\r\nhello", badCL),
        .init("CL hex", ok + "Content-Length: 0x5\r\n\r\nhello", badCL),
        .init("CL trailing comma", ok + "Content-Length: 5,\r\n\r\nhello", badCL),
        .init("chunk size g", chunkedHead + "g\r\n", badChunkSize),
        .init("chunk size empty", chunkedHead + "\r\n", badChunkSize),
        .init("chunk size missing before extension", chunkedHead + ";a=b\r\n", badChunkSize),
        .init("chunk size 0x prefix", chunkedHead + "0x5\r\nhello\r\n", badChunkSize),
        .init("chunk size followed by whitespace only", chunkedHead + "5 \r\nhello\r\n0\r\n\r\n", badChunkSize),
        .init("chunk size with bare LF", chunkedHead + "5\nhello\r\n0\r\n\r\n", badChunkSize),
        .init("chunk size with bare CR", chunkedHead + "5\rhello\r\n0\r\n\r\n", .invalid("bare CR in chunk-size line")),
        .init("chunk size 16 hex digits", chunkedHead + "1000000000000000\r\n", .invalid("chunk size too large")),
        .init("chunk size 16 digits with leading zeros", chunkedHead + "0000000000000005\r\nhello\r\n", .invalid("chunk size too large")),
        .init("NUL in chunk extension", bytes: bytes(chunkedHead + "5;a") + [0x00] + bytes("\r\nhello\r\n"), .invalid("invalid byte in chunk extension")),
        .init("LF in chunk extension", chunkedHead + "5;a\nhello\r\n", .invalid("invalid byte in chunk extension")),
        .init("chunk-size line too long", chunkedHead + "5;" + String(repeating: "a", count: 5000) + "\r\nhello\r\n", .invalid("chunk-size line too long")),
        .init("missing CRLF after chunk data", chunkedHead + "5\r\nhello!\r\n0\r\n\r\n", badChunkEnd),
        .init("LF only after chunk data", chunkedHead + "5\r\nhello\n0\r\n\r\n", badChunkEnd),
        .init("CR only after chunk data", chunkedHead + "5\r\nhello\r0\r\n\r\n", badChunkEnd),
        .init("trailer obs-fold", chunkedHead + "0\r\nA: b\r\n c\r\n\r\n", .invalid("obsolete line folding in trailer")),
        .init("trailer space before colon", chunkedHead + "0\r\nA : b\r\n\r\n", .invalid("invalid trailer field name")),
        .init("trailer without colon", chunkedHead + "0\r\nAb\r\n\r\n", .invalid("invalid trailer field name")),
        .init("trailer bare LF", chunkedHead + "0\r\nA: b\n\r\n", .invalid("invalid byte in trailer field value")),
        .init("trailer bare CR", chunkedHead + "0\r\nA: b\rc\r\n\r\n", .invalid("bare CR in trailer")),
        .init("trailer bare LF as last line", chunkedHead + "0\r\nA: b\r\n\n", .invalid("invalid trailer field name")),
        .init("trailer bare CR as last line", chunkedHead + "0\r\n\rX", .invalid("bare CR in trailer")),
        .init("DEL in trailer value", bytes: bytes(chunkedHead + "0\r\nA: ") + [0x7F] + bytes("\r\n\r\n"), .invalid("invalid byte in trailer field value")),
        .init("too many fields", ok + (0...100).map { "X-F\($0): v\r\n" }.joined() + "\r\n", .invalid("too many header fields")),
        .init("bad field in interim response", "HTTP/1.1 100 Continue\r\nX A: b\r\n\r\n" + ok + "Content-Length: 0\r\n\r\n", badName),
    ]

    @Test(arguments: invalidCases)
    func invalidInputInOneBuffer(_ testCase: InvalidCase) {
        let out = parse([testCase.input], eof: true)
        #expect(out.error == testCase.error)
        #expect(!out.events.contains(.end))
    }

    @Test(arguments: invalidCases)
    func invalidInputByteByByte(_ testCase: InvalidCase) {
        let out = parse(oneByOne(testCase.input), eof: true)
        #expect(out.error == testCase.error)
        #expect(!out.events.contains(.end))
    }

    // MARK: Size limits

    /// A head of exactly `limit` bytes.
    static func head(ofLength limit: Int) -> [UInt8] {
        let prefix = "HTTP/1.1 204 No Content\r\nX-Pad: "
        let suffix = "\r\n\r\n"
        return bytes(prefix + String(repeating: "p", count: limit - prefix.utf8.count - suffix.utf8.count) + suffix)
    }

    @Test(arguments: [1, 2, 3, 7, 64, 1000])
    func headOfExactlyMaxHeadBytesIsAccepted(pieceSize: Int) {
        let input = Self.head(ofLength: 200)
        #expect(input.count == 200)
        let out = parse(pieces(input, size: pieceSize), maxHeadBytes: 200)
        #expect(out.error == nil)
        #expect(out.events.last == .end)
    }

    @Test(arguments: [1, 2, 3, 7, 64, 1000])
    func headOneByteOverMaxHeadBytesIsTooLarge(pieceSize: Int) {
        let input = Self.head(ofLength: 201)
        let out = parse(pieces(input, size: pieceSize), maxHeadBytes: 200)
        #expect(out.error == .headTooLarge)
        #expect(out.events.isEmpty)
    }

    @Test func defaultMaxHeadBytes() {
        #expect(parse([Self.head(ofLength: 64 * 1024)]).error == nil)
        #expect(parse([Self.head(ofLength: 64 * 1024 + 1)]).error == .headTooLarge)
        #expect(parse(pieces(Self.head(ofLength: 64 * 1024 + 1), size: 1000)).error == .headTooLarge)
    }

    @Test func headTooLargeIsDetectedAsSoonAsTheLimitIsBuffered() {
        var parser = UpstreamResponseParser(maxHeadBytes: 100)
        parser.expectResponse(toHEAD: false)
        let endless = bytes("HTTP/1.1 200 OK\r\nX-Endless: " + String(repeating: "a", count: 200))
        for (index, byte) in endless.enumerated() {
            var buffer = ByteBuffer(bytes: [byte])
            do {
                try parser.feed(&buffer) { _ in Issue.record("no events expected") }
                #expect(index < 99, "no error after \(index + 1) bytes")
                #expect(buffer.readableBytes == 0)
            } catch {
                #expect(error == .headTooLarge)
                #expect(index == 99)
                return
            }
        }
        Issue.record("never threw")
    }

    @Test func eachInterimHeadHasItsOwnLimit() {
        let hundred = bytes("HTTP/1.1 100 Continue\r\nX-Pad: " + String(repeating: "p", count: 100) + "\r\n\r\n")
        let final = bytes("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        let out = parse([hundred + hundred + final], maxHeadBytes: 150)
        #expect(hundred.count < 150)
        #expect(out.error == nil)
        #expect(out.events.count == 2)
    }

    @Test(arguments: [1, 5, 1000])
    func trailerSectionIsLimited(pieceSize: Int) {
        let head = bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n")
        // Trailer section of exactly 100 bytes (fields + final CRLF) is accepted, 101 is not.
        let fits = bytes("X-T: " + String(repeating: "t", count: 100 - 9) + "\r\n\r\n")
        #expect(fits.count == 100)
        let tooBig = bytes("X-T: " + String(repeating: "t", count: 101 - 9) + "\r\n\r\n")
        let ok = parse(pieces(head + fits, size: pieceSize), maxHeadBytes: 100)
        #expect(ok.error == nil)
        #expect(ok.events.last == .end)
        let bad = parse(pieces(head + tooBig, size: pieceSize), maxHeadBytes: 100)
        #expect(bad.error == .headTooLarge)
    }

    @Test func largestAllowedNumbersDoNotOverflow() {
        let cl = parse([bytes("HTTP/1.1 200 OK\r\nContent-Length: 999999999999999999\r\n\r\nabc")])
        #expect(cl.error == nil)
        #expect(cl.events.dropFirst() == [.body(bytes("abc"))])
        let chunk = parse([bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFF\r\nabc")])
        #expect(chunk.error == nil)
        #expect(chunk.events.dropFirst() == [.body(bytes("abc"))])
    }
}

/// What the gateway writes of an upstream head (``UpstreamHead/writeEndToEndFields(into:omitting:withoutBody:)``):
/// the end-to-end lines as bytes, exactly the fields `HopByHopHeaders.responseFields` keeps of the parsed response.
@Suite("Upstream head passed on as bytes")
struct UpstreamHeadBytesTests {
    private static func head(_ text: String, toHEAD: Bool = false) throws -> UpstreamHead {
        try Self.head(bytes: Array(text.utf8), toHEAD: toHEAD)
    }

    private static func head(bytes: [UInt8], toHEAD: Bool = false) throws -> UpstreamHead {
        var parser = UpstreamResponseParser()
        parser.expectResponse(toHEAD: toHEAD)
        var buffer = ByteBuffer(bytes: bytes)
        var head: UpstreamHead?
        try parser.feed(&buffer) { event in
            if case .head(let parsed) = event { head = parsed }
        }
        return try #require(head)
    }

    private static func endToEnd(_ head: UpstreamHead, withoutBody: Bool = false) -> (text: String, contentLength: Bool, date: Bool) {
        var bytes = ByteBuffer()
        let written = head.writeEndToEndFields(into: &bytes, omitting: GatewayResponder.requestIDHeader, withoutBody: withoutBody)
        return (String(buffer: bytes), written.contentLength, written.date)
    }

    /// The same fields through `HTTPFields`, as the other paths filter them.
    private static func throughFields(_ head: UpstreamHead) -> String {
        var fields = HopByHopHeaders.responseFields(head.response.headerFields)
        fields[GatewayResponder.requestIDHeader] = nil
        return fields.map { "\($0.name.rawName): \($0.value)\r\n" }.joined()
    }

    @Test func hopByHopAndListedFieldsStayBehind() throws {
        let head = try Self.head(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: keep-alive, X-Secret\r\nKeep-Alive: timeout=5\r\n"
                + "x-secret: s\r\nTE: trailers\r\nTrailer: X\r\nUpgrade: h2c\r\nProxy-Connection: keep-alive\r\nProxy-Authenticate: Basic\r\n"
                + "proxy-: x\r\nProxy-Status: upstream\r\nX-Request-Id: theirs\r\nX-Secret-Not: kept\r\nX~a: 1\r\nContent-Length: 2\r\n\r\nok"
        )
        let out = Self.endToEnd(head)
        #expect(
            out.text
                == "Content-Type: application/json\r\nProxy-Status: upstream\r\nX-Secret-Not: kept\r\nX~a: 1\r\nContent-Length: 2\r\n"
        )
        #expect(out.contentLength)
        #expect(!out.date)
        #expect(out.text == Self.throughFields(head))
    }

    @Test("lines that pass as they came are copied in runs; the others are rewritten between them")
    func runsOfLines() throws {
        let head = try Self.head(
            "HTTP/1.1 200 OK\r\nA: 1\r\nB:2\r\nC: 3\r\nConnection: close\r\nD: 4\r\nE: 5 \r\nF: \r\nG:\r\nTE: x\r\n\r\n"
        )
        let out = Self.endToEnd(head)
        #expect(out.text == "A: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\nF: \r\nG: \r\n")
        #expect(out.text == Self.throughFields(head))
    }

    @Test func listedNamesFoldOnlyLetters() throws {
        // `^` and `~` are both token characters, 0x20 apart: a name listed as `X^a` does not take `X~a` with it.
        let head = try Self.head("HTTP/1.1 200 OK\r\nConnection: X^a\r\nX~a: 1\r\nx^A: 2\r\nContent-Length: 0\r\n\r\n")
        let out = Self.endToEnd(head)
        #expect(out.text == "X~a: 1\r\nContent-Length: 0\r\n")
        #expect(out.text == Self.throughFields(head))
    }

    @Test("obs-text (a Latin-1 byte, not UTF-8) passes as the byte received")
    func obsTextPassesAsBytes() throws {
        let head = try Self.head(bytes: Array("HTTP/1.1 200 OK\r\nX-Latin: caf".utf8) + [0xE9] + Array("\r\nContent-Length: 0\r\n\r\n".utf8))
        var bytes = ByteBuffer()
        _ = head.writeEndToEndFields(into: &bytes, omitting: GatewayResponder.requestIDHeader, withoutBody: false)
        #expect(Array(bytes.readableBytesView) == Array("X-Latin: caf".utf8) + [0xE9] + Array("\r\nContent-Length: 0\r\n".utf8))
    }

    @Test func valuesAndSpellingPassAsReceived() throws {
        let head = try Self.head("HTTP/1.1 200 OK\r\nx-ODD:   two  words \t\r\nX-Latin: caf\u{E9}\r\nDate: Tue, 01 Dec 2026 00:00:00 GMT\r\n\r\n")
        let out = Self.endToEnd(head)
        #expect(out.text == "x-ODD: two  words\r\nX-Latin: caf\u{E9}\r\nDate: Tue, 01 Dec 2026 00:00:00 GMT\r\n")
        #expect(!out.contentLength)
        #expect(out.date)
    }

    @Test func repeatedContentLengthPassesOnce() throws {
        let head = try Self.head("HTTP/1.1 200 OK\r\ncontent-length: 5, 5\r\nX: y\r\nContent-Length: 5\r\n\r\nhello")
        let out = Self.endToEnd(head)
        #expect(out.text == "content-length: 5\r\nX: y\r\n")
        #expect(out.contentLength)
        // `HTTPFields` spells the replaced field its own way.
        #expect(out.text.lowercased() == Self.throughFields(head).lowercased())
    }

    @Test(arguments: [204, 304])
    func noContentLengthWithoutABody(code: Int) throws {
        let head = try Self.head("HTTP/1.1 \(code) X\r\nContent-Length: 5\r\nETag: \"a\"\r\n\r\n")
        let out = Self.endToEnd(head, withoutBody: true)
        #expect(out.text == "ETag: \"a\"\r\n")
        #expect(!out.contentLength)
    }

    @Test func headSplitAcrossReadsIsKept() throws {
        var parser = UpstreamResponseParser()
        parser.expectResponse(toHEAD: false)
        var head: UpstreamHead?
        for piece in ["HTTP/1.1 200 OK\r\nX-A: 1\r\nX-", "B: 2\r\nContent-Length: 0\r\n", "\r\n"] {
            var buffer = ByteBuffer(string: piece)
            try parser.feed(&buffer) { event in
                if case .head(let parsed) = event { head = parsed }
            }
        }
        // The next answer reuses the parser's buffer; the head handed out must not change with it.
        parser.expectResponse(toHEAD: false)
        var next = ByteBuffer(string: "HTTP/1.1 200 OK\r\nX-Z: 9")
        try parser.feed(&next) { _ in }
        let out = Self.endToEnd(try #require(head))
        #expect(out.text == "X-A: 1\r\nX-B: 2\r\nContent-Length: 0\r\n")
    }
}
