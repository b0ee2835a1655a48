import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Testing

@testable import Gateway
@testable import HTTPWire

/// The raw path's request reader against SwiftNIO's parser and HTTP type conversion, which read every request the
/// raw path does not: for the heads it takes it must build exactly what they build, and it must leave every
/// unusual head to them.
@Suite("Raw request head")
struct RawRequestHeadTests {
    static let taken: [String] = [
        "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /api/hello?x=1&y=%20z HTTP/1.1\r\nHost: gateway.example:8080\r\nAuthorization: Bearer abc.def-_ghi\r\nUser-Agent: wrk\r\n\r\n",
        "HEAD /open/echo HTTP/1.1\r\nhost: h\r\nAccept: */*\r\n\r\n",
        "POST /functions/v1/story-generation HTTP/1.1\r\nHost: a\r\nx-firebase-appcheck: eyJhbGciOiJSUzI1NiJ9.e30.c2ln\r\nAccept: */*\r\n\r\n",
        "DELETE /hook?q=1 HTTP/1.1\r\nHost: h\r\nX-Trace:   spaced value \t \r\nX-Empty:\r\nx-empty2: \r\n\r\n",
        "POST /open/echo HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n",
        "OPTIONS /x HTTP/1.1\r\nHOST: h\r\nCookie: a=1; b=2\r\nCookie: c=3\r\nX-Dup: 1\r\nx-dup: 2\r\n\r\n",
        "PATCH /a/%2e%2e/b;p=1:@!$&'()*+,= HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n",
        "GET /x HTTP/1.1\r\nX-First: 1\r\nHost: late\r\nX-Tab:\tv\r\n\r\n",
        "PURGE /x HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET /x HTTP/1.1\r\nHost: \r\n\r\n",
        "GET /x HTTP/1.1\r\nHost: h\r\nauthorization:   Basic eDp5 \t\r\nX-After: 1\r\n\r\n",
    ]

    /// What SwiftNIO's decoder and `HTTP1ToHTTPServerCodec(secure: false)` make of `text`.
    static func nioHead(_ text: String) throws -> HTTPRequest {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder()))
        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
        try channel.writeInbound(ByteBuffer(string: text))
        guard case .head(let head) = try #require(try channel.readInbound(as: HTTPRequestPart.self)) else {
            Issue.record("no head")
            throw ChannelError.inputClosed
        }
        _ = try? channel.finish()
        return head
    }

    static func parse(_ text: String, maxBytes: Int = 32 * 1024, maxFields: Int = 100) -> RawRequestHead.Outcome {
        Array(text.utf8).withUnsafeBytes { RawRequestHead.parse($0, maxBytes: maxBytes, maxFields: maxFields) }
    }

    @Test("a head it takes is read exactly as SwiftNIO reads it", arguments: Self.taken)
    func agreesWithNIO(_ text: String) throws {
        guard case .complete(let parsed) = Self.parse(text) else {
            Issue.record("not taken: \(text.debugDescription)")
            return
        }
        let (raw, authorization, appCheck, length) = (parsed.request, parsed.authorization, parsed.appCheck, parsed.length)
        #expect(length == text.utf8.count)
        let nio = try Self.nioHead(text)
        #expect(raw.method == nio.method)
        #expect(raw.scheme == nio.scheme)
        #expect(raw.authority == nio.authority)
        #expect(raw.path == nio.path)
        // `Authorization` and `X-Firebase-AppCheck` are kept apart, with the values SwiftNIO reads; the other fields
        // are the same, in order.
        #expect(authorization == nio.headerFields[.authorization])
        #expect(appCheck == nio.headerFields[RequestRules.appCheckHeader])
        var others = nio.headerFields
        others[.authorization] = nil
        others[RequestRules.appCheckHeader] = nil
        #expect(raw.headerFields == others)
        #expect(raw.headerFields.map(\.name.rawName) == others.map(\.name.rawName))
    }

    @Test("every proper prefix of a head is incomplete, not a guess", arguments: Self.taken)
    func prefixes(_ text: String) {
        let bytes = Array(text.utf8)
        for end in 0..<bytes.count {
            let outcome = bytes[0..<end].withUnsafeBytes { RawRequestHead.parse($0, maxBytes: 32 * 1024, maxFields: 100) }
            guard case .incomplete = outcome else {
                Issue.record("prefix of \(end) bytes: \(outcome) for \(text.debugDescription)")
                return
            }
        }
    }

    @Test("pipelined heads: the first one's length, the rest left")
    func pipelined() {
        let first = "GET /1 HTTP/1.1\r\nHost: a\r\n\r\n"
        guard case .complete(let head) = Self.parse(first + "GET /2 HTTP/1.1\r\nHost: a\r\n\r\n") else {
            Issue.record("not taken")
            return
        }
        #expect(head.request.path == "/1")
        #expect(head.length == first.utf8.count)
    }

    static let framings: [(String, RequestBodyFraming, expectsContinue: Bool, closes: Bool)] = [
        ("GET / HTTP/1.1\r\nHost: a\r\n\r\n", .none, false, false),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n", .none, false, false),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n", .length(5), false, false),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1048576000\r\n\r\n", .length(1_048_576_000), false, false),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 9223372036854775807\r\n\r\n", .length(Int.max), false, false),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 18446744073709551615\r\n\r\n", .length(Int.max), false, false),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", .chunked, false, false),
        ("POST / HTTP/1.1\r\nHost: a\r\ntransfer-encoding: CHUNKED \r\n\r\n", .chunked, false, false),
        ("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 5\r\n\r\n", .length(5), true, false),
        ("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, close\r\n\r\n", .none, false, true),
    ]

    @Test("the body's framing, Expect and Connection are read from the head", arguments: Self.framings)
    func framing(_ text: String, _ framing: RequestBodyFraming, expectsContinue: Bool, closes: Bool) {
        guard case .complete(let head) = Self.parse(text) else {
            Issue.record("not taken: \(text.debugDescription)")
            return
        }
        #expect(head.body == framing)
        #expect(head.expectsContinue == expectsContinue)
        #expect(head.closesConnection == closes)
        #expect(head.length == text.utf8.count)
        // The connection answers `Expect`: it is not among the fields passed on.
        #expect(head.request.headerFields[.expect] == nil)
    }

    static let leftToNIO: [String] = [
        "GET / HTTP/1.0\r\nHost: a\r\n\r\n",
        "GET / HTTP/2.0\r\nHost: a\r\n\r\n",
        "get / HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n",
        "CONNECT a:443 HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /a#frag HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /a\"b HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /caf\u{e9} HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET  / HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.1\nHost: a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\n\n",
        "GET / HTTP/1.1\r\nHost: a\rX\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n folded\r\n\r\n",
        "GET / HTTP/1.1\r\nHost : a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\n: empty\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nX(A): 1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nX-A: caf\u{e9}\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nX-A: a\u{7f}b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nX-A: a\u{0}b\r\n\r\n",
        "GET / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer a\r\nauthorization: Bearer b\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 00\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\ntransfer-encoding: identity\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nExpect: 100-continue\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n",
        "\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
        "\u{16}\u{3}\u{1}\u{0}",
    ]

    @Test("anything unusual is left to SwiftNIO's parser", arguments: Self.leftToNIO)
    func unsupported(_ text: String) {
        guard case .unsupported = Self.parse(text) else {
            Issue.record("taken or waiting: \(Self.parse(text)) for \(text.debugDescription)")
            return
        }
    }

    @Test("a long value is read a word at a time: any byte outside the values taken here, at any position, is noticed")
    func longValues() throws {
        // Every byte at every offset of a 40-byte value after prefixes of 0 to 7 bytes (so each lands in each lane of a
        // word, and in the tail after the last whole word).
        let allowed = Set((0x20...0x7E).map(UInt8.init) + [0x09])
        for prefix in 0..<8 {
            for position in [0, 3, 7, 8, 15, 31, 39] {
                for byte in (0...255).map(UInt8.init) where byte != UInt8(ascii: "\r") && byte != UInt8(ascii: "\n") {
                    var value = Array(repeating: UInt8(ascii: "a"), count: 40)
                    value[position] = byte
                    let head = Array("GET / HTTP/1.1\r\nHost: a\r\nX-Pad: \(String(repeating: "p", count: prefix))\r\nX-Long: ".utf8) + value
                        + Array("\r\n\r\n".utf8)
                    let outcome = head.withUnsafeBytes { RawRequestHead.parse($0, maxBytes: 32 * 1024, maxFields: 100) }
                    // A tab or space at either end is trimmed, not refused: only the class matters here.
                    switch outcome {
                    case .complete: #expect(allowed.contains(byte), "byte \(byte) at \(position) after \(prefix) taken")
                    case .unsupported: #expect(!allowed.contains(byte), "byte \(byte) at \(position) after \(prefix) refused")
                    case .incomplete: Issue.record("incomplete: byte \(byte) at \(position)")
                    }
                }
            }
        }
    }

    @Test("heads over the field count or the byte limit are left to SwiftNIO's parser (it answers 431)")
    func limits() {
        let fields = (1...5).map { "X-\($0): v\r\n" }.joined()
        let text = "GET / HTTP/1.1\r\nHost: a\r\n" + fields + "\r\n"
        guard case .complete = Self.parse(text, maxFields: 6) else {
            Issue.record("six fields not taken")
            return
        }
        guard case .unsupported = Self.parse(text, maxFields: 5) else {
            Issue.record("six fields taken with a limit of five")
            return
        }
        guard case .unsupported = Self.parse(text, maxBytes: text.utf8.count - 1) else {
            Issue.record("taken over the byte limit")
            return
        }
        // Over the byte limit without an end yet: no use waiting.
        let long = "GET /" + String(repeating: "a", count: 200)
        guard case .unsupported = Self.parse(long, maxBytes: 100) else {
            Issue.record("waited past the byte limit")
            return
        }
    }
}
