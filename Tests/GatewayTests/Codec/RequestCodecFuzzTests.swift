import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Synchronization
import Testing
import TestSupport

@testable import Gateway
@testable import HTTPWire

/// The gateway's own request reader (``RawRequestHead``, with ``RequestFraming`` as the raw path applies it) against
/// SwiftNIO's `HTTPRequestDecoder` as the server configures it (HummingbirdCore's decoder limits, then
/// ``RequestLineRules``, `HTTP1ToHTTPServerCodec(secure: false)` and ``RequestFraming``), on generated requests
/// (``RequestGenerator``), one to three back to back, fed whole and in random pieces.
///
/// The raw path takes requests until the first one it does not (``RawRequestHead/Outcome/unsupported``, a head or
/// body not complete yet, a framing rule broken); from there SwiftNIO reads the connection. So what counts is the
/// requests the raw path took: SwiftNIO, reading exactly those bytes, must read the same requests — the same method,
/// target, authority and fields in order, the same body — end the last one exactly where the raw path ended it, and
/// refuse none. However the bytes arrive, the raw path must not refuse a head it takes when it arrives whole.
///
/// Differences kept on purpose (each case is named, counted, and must match exactly this shape):
///
/// | Exclusion       | Input                                      | Gateway reader         | SwiftNIO (llhttp)         | Why                                   |
/// |-----------------|--------------------------------------------|------------------------|---------------------------|---------------------------------------|
/// | `unknownMethod` | an upper-case token method llhttp does not | reads it (405 or on)   | 400 (`invalidMethod`)     | RFC 9110 §9.1: a method is any token; |
/// |                 | list (`FOO`, `BREW`, `GETT`); `PRI`        |                        | (`invalidVersion` for     | the framing is the same either way    |
/// |                 |                                            |                        | `PRI`: the HTTP/2 preface)|                                       |
/// | `contentLength` | `Content-Length: 5\t` (a tab in the       | reads 5                | 400                       | RFC 9112 §5: OWS (SP or HTAB) around  |
/// | `TrailingTab`   | whitespace after the digits)               |                        | (`invalidContentLength`)  | a field value is not part of it       |
@Suite("Request codec differential fuzz")
struct RequestCodecFuzzTests {
    static let maxHeadBytes = ServerLimits().maxHeaderBytes
    static let maxFields = ServerLimits().maxHeaderCount

    /// A request as the gateway works with it.
    struct Read: Equatable, CustomStringConvertible {
        var method: String
        var scheme: String?
        var authority: String?
        var path: String?
        var fields: [String]
        var body: [UInt8]

        var description: String {
            let fields = self.fields.map { $0.count > 80 ? "\($0.prefix(80))… (\($0.utf8.count) bytes)" : $0 }
            return "\(self.method) \((self.path ?? "-").prefix(80)) authority=\(self.authority ?? "-") fields=\(fields) body=\(self.body.count) bytes"
        }

        init(_ request: HTTPRequest, authorization: String? = nil, appCheck: String? = nil, body: [UInt8]) {
            // NIOHTTP1 spells llhttp's `M-SEARCH` `MSEARCH`.
            self.method = request.method.rawValue == "MSEARCH" ? "M-SEARCH" : request.method.rawValue
            self.scheme = request.scheme
            self.authority = request.authority
            self.path = request.path
            self.fields = request.headerFields.map { "\($0.name.rawName): \($0.value)" }
            if let authorization { self.fields.append("Authorization: \(authorization)") }
            if let appCheck { self.fields.append("X-Firebase-AppCheck: \(appCheck)") }
            self.body = body
        }

        /// With `Authorization`, then `X-Firebase-AppCheck`, last, as ``RawRequestHead`` keeps them apart.
        func authorizationLast() -> Read {
            var read = self
            for name in ["Authorization", "X-Firebase-AppCheck"] {
                let prefix = name.lowercased() + ":"
                let kept = read.fields.filter { $0.lowercased().hasPrefix(prefix) }
                read.fields.removeAll { $0.lowercased().hasPrefix(prefix) }
                read.fields += kept.map { name + ":" + $0.drop { $0 != ":" }.dropFirst() }
            }
            return read
        }
    }

    enum Exclusion: String, CaseIterable {
        case unknownMethod
        case contentLengthTrailingTab
    }

    /// What the raw path takes of `bytes`, fed in the pieces `cuts` makes: the requests, and where the last ends.
    static func gatewayReads(_ bytes: [UInt8], cuts: [Int]) -> (reads: [Read], heads: [[UInt8]], end: Int, problem: String?) {
        var reads: [Read] = []
        var heads: [[UInt8]] = []
        var offset = 0
        var problem: String?
        bytes.withUnsafeBytes { all in
            while offset < all.count {
                let rest = UnsafeRawBufferPointer(rebasing: all[offset...])
                let outcome = RawRequestHead.parse(rest, maxBytes: Self.maxHeadBytes, maxFields: Self.maxFields)
                guard case .complete(let parsed) = outcome, !parsed.expectsContinue else { return }
                let (head, authorization, appCheck, length) = (parsed.request, parsed.authorization, parsed.appCheck, parsed.length)
                let bodyLength: Int
                switch parsed.body {
                case .none: bodyLength = 0
                case .length(let declared) where declared <= RawPathHandler.maxInlineBody: bodyLength = declared
                case .length, .chunked: return
                }
                guard (try? RequestFraming.check(head)) != nil, !RequestFraming.endsConnection(head) else { return }
                guard offset + length + bodyLength <= all.count else { return }
                // The same head arriving in pieces: never refused before it is whole.
                for cut in cuts where cut > offset && cut < offset + length {
                    let part = UnsafeRawBufferPointer(rebasing: all[offset..<cut])
                    if case .invalid = RawRequestHead.parse(part, maxBytes: Self.maxHeadBytes, maxFields: Self.maxFields) {
                        problem = "the first \(cut - offset) bytes of request \(reads.count + 1) are refused, the whole head is taken"
                    }
                }
                let body = Array(all[(offset + length)..<(offset + length + bodyLength)])
                reads.append(Read(head, authorization: authorization, appCheck: appCheck, body: body))
                heads.append(Array(all[offset..<(offset + length)]))
                offset += length + bodyLength
                // The connection closes after the answer to this one: nothing after it is read.
                if HopByHopHeaders.listsClose(head.headerFields[.connection]) { return }
            }
        }
        return (reads, heads, offset, problem)
    }

    /// What SwiftNIO, as the server configures it, reads of `bytes` fed in the pieces `cuts` makes, then the end
    /// of the input: the requests, and the error that ended the reading (if any).
    static func referenceReads(_ bytes: [UInt8], cuts: [Int]) -> (reads: [Read], error: (any Error)?) {
        let channel = EmbeddedChannel()
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = Self.maxHeadBytes
        limits.maxHeaderListSize = Self.maxHeadBytes
        limits.maxHeaderFieldCount = Self.maxFields
        var reads: [Read] = []
        var head: HTTPRequest?
        var body: [UInt8] = []
        var failure: (any Error)?
        func drain() throws {
            while let part = try channel.readInbound(as: HTTPRequestPart.self) {
                switch part {
                case .head(let request):
                    try RequestFraming.check(request)
                    head = request
                    body = []
                case .body(let buffer):
                    buffer.withUnsafeReadableBytes { body.append(contentsOf: $0) }
                case .end:
                    if let request = head { reads.append(Read(request, body: body).authorizationLast()) }
                    head = nil
                }
            }
        }
        do {
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: limits)))
            try channel.pipeline.syncOperations.addHandler(RequestLineRules())
            try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            var start = 0
            for end in cuts + [bytes.count] {
                try channel.writeInbound(ByteBuffer(bytes: bytes[start..<end]))
                try drain()
                start = end
            }
            try channel.throwIfErrorCaught()
            _ = try channel.finish(acceptAlreadyClosed: true)
            try drain()
        } catch {
            failure = error
            // The requests decoded before the error.
            try? drain()
        }
        _ = try? channel.finish(acceptAlreadyClosed: true)
        return (reads, failure)
    }

    /// The exclusion that explains why SwiftNIO refused request `index` of `reads` that the raw path took, if any.
    static func exclusion(gateway: [Read], heads: [[UInt8]], reference: (reads: [Read], error: (any Error)?)) -> Exclusion? {
        guard reference.reads == Array(gateway.prefix(reference.reads.count)), reference.reads.count < gateway.count,
            let error = reference.error as? HTTPParserError
        else { return nil }
        let method = gateway[reference.reads.count].method
        let isToken = method.utf8.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
        if isToken, error == .invalidMethod, !Self.llhttpMethods.contains(method) { return .unknownMethod }
        // llhttp reads `PRI` only as the start of the HTTP/2 preface, `PRI * HTTP/2.0`.
        if method == "PRI", error == .invalidVersion { return .unknownMethod }
        if error == .invalidContentLength, Self.hasContentLengthWithTrailingTab(heads[reference.reads.count]) { return .contentLengthTrailingTab }
        return nil
    }

    /// Whether a field line of `head` is `Content-Length: <digits>` followed by whitespace with a tab in it.
    static func hasContentLengthWithTrailingTab(_ head: [UInt8]) -> Bool {
        let text = String(decoding: head, as: UTF8.self)
        return text.split(separator: "\r\n").contains { line in
            guard line.lowercased().hasPrefix("content-length:") else { return false }
            let value = line.dropFirst("content-length:".count).drop { $0 == " " || $0 == "\t" }
            let digits = value.prefix { $0.isASCII && $0.isNumber }
            let rest = value.dropFirst(digits.count)
            return !digits.isEmpty && rest.contains("\t") && rest.allSatisfy { $0 == " " || $0 == "\t" }
        }
    }

    /// The methods llhttp reads in an HTTP/1 request (llhttp's `HTTP_METHOD_MAP` and `RTSP` ones it takes for HTTP).
    static let llhttpMethods: Set<String> = [
        "DELETE", "GET", "HEAD", "POST", "PUT", "CONNECT", "OPTIONS", "TRACE", "COPY", "LOCK", "MKCOL", "MOVE", "PROPFIND",
        "PROPPATCH", "SEARCH", "UNLOCK", "BIND", "REBIND", "UNBIND", "ACL", "REPORT", "MKACTIVITY", "CHECKOUT", "MERGE",
        "M-SEARCH", "NOTIFY", "SUBSCRIBE", "UNSUBSCRIBE", "PATCH", "PURGE", "MKCALENDAR", "LINK", "UNLINK", "SOURCE", "QUERY",
    ]

    /// Checks the case of `seed`; returns a failure's description, or nil; counts what it saw in `tally`.
    static func check(seed: UInt64, tally: inout Tally) -> String? {
        var generator = RequestGenerator(seed: seed)
        let (bytes, messages) = generator.generateCase()
        let cuts = generator.random.splits(of: bytes.count, pieces: 1 + generator.random.below(6))
        tally.messages += messages
        let gateway = Self.gatewayReads(bytes, cuts: cuts)
        let describe = { (problem: String) in CodecFuzz.describe(seed: seed, suite: "RequestCodecFuzzTests", bytes: bytes, problem) }
        if let problem = gateway.problem { return describe(problem) }
        tally.taken += gateway.reads.count
        guard !gateway.reads.isEmpty else { return nil }
        // SwiftNIO reads exactly what the raw path took, whole and in the same pieces.
        let taken = Array(bytes[..<gateway.end])
        let reference = Self.referenceReads(taken, cuts: cuts.filter { $0 < gateway.end })
        if reference.error == nil, reference.reads == gateway.reads { return nil }
        if let exclusion = Self.exclusion(gateway: gateway.reads, heads: gateway.heads, reference: reference) {
            tally.excluded[exclusion, default: 0] += 1
            return nil
        }
        return describe(
            """
            the raw path and SwiftNIO read the first \(gateway.end) bytes differently
              raw path: \(gateway.reads)
              SwiftNIO: \(reference.reads) error: \(reference.error.map { String(describing: $0) } ?? "none")
            """
        )
    }

    struct Tally {
        var messages = 0
        var taken = 0
        var excluded: [Exclusion: Int] = [:]
    }

    @Test("the raw path reads what SwiftNIO reads", arguments: CodecFuzz.shards)
    func differential(shard: Int) async throws {
        // Seconds of CPU with no suspension: on a thread of its own, not on the cooperative pool (one thread per
        // core) that the other tests' gateways and servers run on.
        let (run, tally, failures) = try await offCooperativePool {
            var tally = Tally()
            var failures: [String] = []
            let run = CodecFuzz.run(shard: shard, messagesOf: RequestGenerator.messageCount(seed:)) { seed in
                guard failures.count < 5, let failure = Self.check(seed: seed, tally: &tally) else { return }
                failures.append(failure)
            }
            return (run, tally, failures)
        }
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
        print("request codec fuzz, shard \(shard): \(run.cases) cases, \(run.messages) messages, \(tally.taken) taken by the raw path, excluded \(tally.excluded)")
        // The generator must reach the reader: a good share of requests are taken, not all handed on.
        if CodecFuzz.replay == nil { #expect(tally.taken * 10 > run.messages) }
    }
}
