import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Testing

@testable import Gateway
@testable import HTTPWire

/// The gateway's request reader against SwiftNIO's parser, version rules and HTTP type conversion: for the heads it
/// reads it must build exactly what they build, and it refuses each head it does not read with a reason.
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
        "GET /a?b HTTP/1.0\r\nUser-Agent: probe\r\n\r\n",
        "GET http://u@a.example:8080?q HTTP/1.1\r\nHost: other\r\nX-A: 1\r\n\r\n",
        "GET HTTPS://A.example/x/{y} HTTP/1.1\r\nHost: other\r\n\r\n",
        "GET ftp://a.example/x HTTP/1.1\r\nHost: h\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET /a\"{|}^`<>\\ HTTP/1.1\r\nHost: h\r\nX-Obs: caf\u{e9} \u{ff}\r\n\r\n",
        "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length:  007 \r\nExpect: 200-ok\r\n\r\n",
    ]

    /// What SwiftNIO's decoder and `HTTP1ToHTTPServerCodec(secure: false)` make of `text`.
    static func nioHead(_ text: String) throws -> HTTPRequest {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder()))
        try channel.pipeline.syncOperations.addHandler(RequestLineRules())
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

    /// Heads the reader refuses or reads though they are unusual, with the outcome: `complete`, `tooLarge`, or the
    /// `malformed` reason.
    static let outcomes: [(String, String)] = [
        ("GET / HTTP/1.0\r\nHost: a\r\n\r\n", "complete"),
        ("GET / HTTP/1.0\r\n\r\n", "complete"),
        ("GET / HTTP/2.0\r\nHost: a\r\n\r\n", "invalid_version"),
        ("GET / HTTP/1.2\r\nHost: a\r\n\r\n", "invalid_version"),
        // A token of any case is a method (RFC 9110 §9.1); llhttp refuses lower case, the router answers 405.
        ("get / HTTP/1.1\r\nHost: a\r\n\r\n", "complete"),
        ("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", "invalid_method"),
        ("GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n", "complete"),
        ("GET http://a:port/ HTTP/1.1\r\nHost: a\r\n\r\n", "invalid_host"),
        ("GET a.example:443 HTTP/1.1\r\nHost: a\r\n\r\n", "invalid_target"),
        ("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", "complete"),
        ("GET * HTTP/1.1\r\nHost: a\r\n\r\n", "asterisk_form"),
        ("CONNECT a:443 HTTP/1.1\r\nHost: a\r\n\r\n", "complete"),
        ("GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", "invalid_version"),
        ("GET /a#frag HTTP/1.1\r\nHost: a\r\n\r\n", "fragment_in_target"),
        ("GET /a\"b HTTP/1.1\r\nHost: a\r\n\r\n", "complete"),
        ("GET /caf\u{e9} HTTP/1.1\r\nHost: a\r\n\r\n", "invalid_target"),
        ("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", "complete"),
        ("GET / HTTP/1.1\nHost: a\r\n\r\n", "invalid_version"),
        ("GET / HTTP/1.1\r\nHost: a\n\r\n", "invalid_field_value"),
        ("GET / HTTP/1.1\r\nHost: a\r\n\n", "invalid_field_name"),
        ("GET / HTTP/1.1\r\nHost: a\rX\r\n\r\n", "bare_cr"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n folded\r\n\r\n", "obs_fold"),
        ("GET / HTTP/1.1\r\nHost : a\r\n\r\n", "invalid_field_name"),
        ("GET / HTTP/1.1\r\nHost: a\r\n: empty\r\n\r\n", "invalid_field_name"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX(A): 1\r\n\r\n", "invalid_field_name"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX-A: caf\u{e9}\r\n\r\n", "complete"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX-A: a\u{7f}b\r\n\r\n", "invalid_field_value"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX-A: a\u{0}b\r\n\r\n", "invalid_field_value"),
        ("GET / HTTP/1.1\r\n\r\n", "missing_host"),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "duplicate_host"),
        ("GET / HTTP/1.1\r\nHost: a b\r\n\r\n", "invalid_host"),
        ("GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer a\r\nauthorization: Bearer b\r\n\r\n", "repeated_authorization"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX-Firebase-AppCheck: a\r\nX-Firebase-AppCheck: a\r\n\r\n", "repeated_app_check"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 00\r\n\r\n", "complete"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n", "content_length"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1, 1\r\n\r\n", "content_length"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\t\r\n\r\n", "content_length"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 18446744073709551616\r\n\r\n", "content_length"),
        ("GET / HTTP/1.1\r\nHost: a\r\ntransfer-encoding: identity\r\n\r\n", "transfer_encoding"),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", "length_and_chunked"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", "length_and_chunked"),
        ("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", "transfer_encoding"),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", "chunked_in_http10"),
        ("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nExpect: 100-continue\r\n\r\n", "complete"),
        ("POST / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n", "complete"),
        ("GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n", "complete"),
        ("\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", "complete"),
        ("\u{16}\u{3}\u{1}\u{0}", "invalid_method"),
    ]

    @Test("every head is read or refused, with its reason", arguments: Self.outcomes)
    func outcome(_ text: String, _ expected: String) {
        let outcome = Self.parse(text)
        let found =
            switch outcome {
            case .complete: "complete"
            case .incomplete: "incomplete"
            case .invalid(.tooLarge): "tooLarge"
            case .invalid(.malformed(let reason)): reason
            }
        #expect(found == expected, "\(text.debugDescription)")
        // What the reader reads, SwiftNIO's stack reads the same way.
        if case .complete(let head) = outcome, !text.hasPrefix("CONNECT"), !text.hasPrefix("get") {
            let reference = try? Self.nioHead(text)
            #expect(reference?.path == head.request.path, "\(text.debugDescription)")
            #expect(reference?.authority == head.request.authority, "\(text.debugDescription)")
        }
    }

    static let connection: [(String, closes: Bool, fields: [String])] = [
        ("GET / HTTP/1.0\r\n\r\n", true, ["Connection: close"]),
        ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", false, ["Connection: Keep-Alive"]),
        ("GET / HTTP/1.0\r\nConnection: close\r\n\r\n", true, ["Connection: close", "Connection: close"]),
        ("GET / HTTP/1.1\r\nHost: a\r\nUpgrade: h2c\r\n\r\n", true, ["Upgrade: h2c"]),
        ("CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\nContent-Length: 5\r\n\r\n", true, ["Content-Length: 5"]),
        ("GET / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n", false, ["Expect: 200-ok"]),
    ]

    @Test("HTTP/1.0, CONNECT and Upgrade close the connection after the answer", arguments: Self.connection)
    func closes(_ text: String, closes: Bool, fields: [String]) {
        guard case .complete(let head) = Self.parse(text) else {
            Issue.record("not read: \(text.debugDescription)")
            return
        }
        #expect(head.closesConnection == closes)
        #expect(head.request.headerFields.map { "\($0.name.rawName): \($0.value)" } == fields)
        // CONNECT has no body: llhttp reads what follows as another protocol.
        if head.request.method == .connect { #expect(head.body == .none) }
    }

    @Test("a long value is read a word at a time: any byte outside the values taken here, at any position, is noticed")
    func longValues() throws {
        // Every byte at every offset of a 40-byte value after prefixes of 0 to 7 bytes (so each lands in each lane of a
        // word, and in the tail after the last whole word).
        let allowed = Set((0x20...0x7E).map(UInt8.init) + (0x80...0xFF).map(UInt8.init) + [0x09])
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
                    case .invalid: #expect(!allowed.contains(byte), "byte \(byte) at \(position) after \(prefix) refused")
                    case .incomplete: Issue.record("incomplete: byte \(byte) at \(position)")
                    }
                }
            }
        }
    }

    @Test("heads over the field count or the byte limit are too large (431)")
    func limits() {
        let fields = (1...5).map { "X-\($0): v\r\n" }.joined()
        let text = "GET / HTTP/1.1\r\nHost: a\r\n" + fields + "\r\n"
        guard case .complete = Self.parse(text, maxFields: 6) else {
            Issue.record("six fields not taken")
            return
        }
        guard case .invalid(.tooLarge) = Self.parse(text, maxFields: 5) else {
            Issue.record("six fields taken with a limit of five")
            return
        }
        guard case .invalid(.tooLarge) = Self.parse(text, maxBytes: text.utf8.count - 1) else {
            Issue.record("taken over the byte limit")
            return
        }
        // Over the byte limit without an end yet: no use waiting.
        let long = "GET /" + String(repeating: "a", count: 200)
        guard case .invalid(.tooLarge) = Self.parse(long, maxBytes: 100) else {
            Issue.record("waited past the byte limit")
            return
        }
    }
}
