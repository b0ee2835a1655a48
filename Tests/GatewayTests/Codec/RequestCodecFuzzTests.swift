import Foundation
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
@testable import GatewayConfig
@testable import HTTPWire

/// The gateway's request reader (``RawRequestHead``, then ``RequestBodyDecoder``) against SwiftNIO's
/// `HTTPRequestDecoder` as an HTTP server configures it (HummingbirdCore's decoder limits, then ``RequestLineRules``,
/// `HTTP1ToHTTPServerCodec(secure: false)` and ``RequestFraming``), on generated requests (``RequestGenerator``), one
/// to three back to back, fed whole and in random pieces, then the end of the input.
///
/// Both must read the same requests — method, target, authority, fields in order, body bytes (chunked ones decoded)
/// — and end the same way: all read and nothing left; a request cut short by the end of the input; or refused at the
/// same request. After a request that closes the connection (`Connection: close`, HTTP/1.0 without keep-alive,
/// CONNECT, `Upgrade`) the gateway reads no more, and what SwiftNIO reads after it is not compared. The gateway keeps
/// `Authorization`, `X-Firebase-AppCheck` and `Expect: 100-continue` apart from the fields: they are compared apart.
/// However the bytes arrive, the gateway must not refuse a head it reads when it arrives whole.
///
/// Differences kept on purpose (each case is named, counted, and must match exactly this shape):
///
/// | Exclusion             | Input                                      | Gateway reader         | SwiftNIO (llhttp)         | Why                                   |
/// |-----------------------|--------------------------------------------|------------------------|---------------------------|---------------------------------------|
/// | `unknownMethod`       | an upper-case token method llhttp does not | reads it (405 or on)   | 400 (`invalidMethod`)     | RFC 9110 §9.1: a method is any token; |
/// |                       | list (`FOO`, `BREW`, `GETT`); `PRI`        |                        | (`invalidVersion` for     | the framing is the same either way    |
/// |                       |                                            |                        | `PRI`: the HTTP/2 preface)|                                       |
/// | `repeatedTokenField`  | `Authorization` or `X-Firebase-AppCheck`   | 400 (`repeated_…`)     | reads both lines          | RFC 9110 §5.3: a field that is not a  |
/// |                       | on two lines                               |                        |                           | list must not be repeated; which one  |
/// |                       |                                            |                        |                           | counts would be a reader's guess      |
/// | `asteriskForm`        | `*` as the target of a method but OPTIONS  | 400 (`asterisk_form`)  | reads it                  | RFC 9112 §3.2.4: asterisk-form is     |
/// |                       |                                            |                        |                           | only for a server-wide OPTIONS        |
/// | `absoluteFormHosts`   | an absolute-form target with two `Host`    | 400 (`duplicate_host`) | reads it (the target's    | RFC 9112 §3.2: a server MUST answer   |
/// |                       | lines                                      |                        | authority replaces both)  | 400 to more than one `Host` line      |
/// | `headBytesLimit`      | a head whose bytes (request line, field    | 431                    | reads it (counts the      | RFC 6585 §5: the limit is the         |
/// |                       | lines, CRLFs) pass the limit while its     |                        | target, names and values) | server's; the gateway counts what     |
/// |                       | target, names and values do not            |                        |                           | arrives                               |
/// | `framingFieldIn`      | `Content-Length` or `Transfer-Encoding` in | reads the request; the | 400                       | RFC 9110 §6.5.1: framing fields must  |
/// | `Trailer`             | a chunked body's trailer section           | trailers are dropped   |                           | not be trailers; they frame nothing   |
/// |                       |                                            |                        |                           | (as for upstream answers)             |
/// | `connectTransfer`     | CONNECT with a `Transfer-Encoding` other   | 400                    | reads it (no body: llhttp | RFC 9112 §6.1: the same rule for      |
/// | `Encoding`            | than exactly `chunked` (`chunked\t`)       | (`transfer_encoding`)  | skips the check)          | every method; CONNECT closes anyway   |
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
        var expectsContinue = false
        var body: [UInt8]
        /// The body's bytes as they came (chunked framing included); not compared.
        var rawBody: [UInt8] = []

        static func == (a: Read, b: Read) -> Bool {
            (a.method, a.scheme, a.authority, a.path) == (b.method, b.scheme, b.authority, b.path)
                && (a.fields, a.expectsContinue, a.body) == (b.fields, b.expectsContinue, b.body)
        }

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

        /// With `Authorization`, then `X-Firebase-AppCheck`, last, and `Expect: 100-continue` as a flag, as
        /// ``RawRequestHead`` keeps them apart.
        func asTheGatewayKeepsIt() -> Read {
            var read = self
            let isContinue = { (field: String) in
                field.lowercased().hasPrefix("expect:")
                    && field.dropFirst("expect:".count).trimmingCharacters(in: .whitespaces).lowercased() == "100-continue"
            }
            read.expectsContinue = read.fields.contains(where: isContinue)
            read.fields.removeAll(where: isContinue)
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
        case repeatedTokenField
        case asteriskForm
        case absoluteFormHosts
        case headBytesLimit
        case framingFieldInTrailer
        case connectTransferEncoding
    }

    /// How the gateway's reading of a case ended.
    enum Ending: Equatable, CustomStringConvertible {
        /// Every byte read, the last request whole.
        case allRead
        /// A request not whole when the input ended.
        case cutShort
        /// A request refused (its head or its body), with the reason.
        case refused(String)
        /// The last request read closes the connection: nothing after it is read.
        case closed

        var description: String {
            switch self {
            case .allRead: return "all read"
            case .cutShort: return "cut short"
            case .refused(let reason): return "refused (\(reason))"
            case .closed: return "closed"
            }
        }
    }

    /// What the gateway reads of `bytes`, fed in the pieces `cuts` makes: the requests, the bytes of the first one
    /// it did not read (as far as they go), and how the reading ended.
    static func gatewayReads(_ bytes: [UInt8], cuts: [Int]) -> (reads: [Read], next: [UInt8], ending: Ending, problem: String?) {
        var reads: [Read] = []
        var rawBodies: [[UInt8]] = []
        var offset = 0
        var problem: String?
        let ending: Ending = bytes.withUnsafeBytes { all in
            while offset < all.count {
                let rest = UnsafeRawBufferPointer(rebasing: all[offset...])
                let parsed: RequestHead
                switch RawRequestHead.parse(rest, maxBytes: Self.maxHeadBytes, maxFields: Self.maxFields) {
                case .incomplete: return .cutShort
                case .invalid(.tooLarge): return .refused("too_large")
                case .invalid(.malformed(let reason)): return .refused(reason)
                case .complete(let head): parsed = head
                }
                // The same head arriving in pieces: never refused before it is whole.
                for cut in cuts where cut > offset && cut < offset + parsed.length {
                    let part = UnsafeRawBufferPointer(rebasing: all[offset..<cut])
                    if case .invalid = RawRequestHead.parse(part, maxBytes: Self.maxHeadBytes, maxFields: Self.maxFields) {
                        problem = "the first \(cut - offset) bytes of request \(reads.count + 1) are refused, the whole head is read"
                    }
                }
                let start = offset
                offset += parsed.length
                // The body, fed in the same pieces.
                var decoder = RequestBodyDecoder(parsed.body, maxTrailerBytes: Self.maxHeadBytes)
                var body: [UInt8] = []
                var pending = ByteBuffer()
                var fed = offset
                var ended = false
                let pieceEnds = cuts.filter { $0 > offset } + [all.count]
                var piece = 0
                while !ended {
                    let part: RequestBodyDecoder.Part?
                    do throws(RequestBodyError) {
                        part = try decoder.next(&pending)
                    } catch {
                        offset = start
                        return .refused(error.reason)
                    }
                    switch part {
                    case .data(let slice): body += slice.readableBytesView
                    case .end: ended = true
                    case nil:
                        guard piece < pieceEnds.count else {
                            offset = start
                            return .cutShort
                        }
                        pending.writeBytes(UnsafeRawBufferPointer(rebasing: all[fed..<pieceEnds[piece]]))
                        fed = pieceEnds[piece]
                        piece += 1
                    }
                }
                // What the decoder left unread is the next request's.
                rawBodies.append(Array(all[(start + parsed.length)..<(fed - pending.readableBytes)]))
                offset = fed - pending.readableBytes
                var read = Read(parsed.request, authorization: parsed.authorization, appCheck: parsed.appCheck, body: body)
                read.expectsContinue = parsed.expectsContinue
                reads.append(read)
                if parsed.closesConnection { return .closed }
            }
            return .allRead
        }
        for (index, raw) in rawBodies.enumerated() { reads[index].rawBody = raw }
        return (reads, Array(bytes[offset...].prefix(300)), ending, problem)
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
        var refusedByRules = false
        func drain() throws {
            while !refusedByRules, let part = try channel.readInbound(as: HTTPRequestPart.self) {
                switch part {
                case .head(let request):
                    do {
                        try RequestFraming.check(request)
                    } catch {
                        refusedByRules = true
                        throw error
                    }
                    head = request
                    body = []
                case .body(let buffer):
                    buffer.withUnsafeReadableBytes { body.append(contentsOf: $0) }
                case .end:
                    if let request = head { reads.append(Read(request, body: body).asTheGatewayKeepsIt()) }
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

    /// The exclusion that explains a difference at request `index` (the first the two read differently), if any.
    static func exclusion(
        gateway: (reads: [Read], next: [UInt8], ending: Ending), reference: (reads: [Read], error: (any Error)?)
    ) -> Exclusion? {
        let index = gateway.reads.count
        let common = min(index, reference.reads.count)
        guard reference.reads.prefix(common) == gateway.reads.prefix(common) else { return nil }
        switch gateway.ending {
        case .refused(let reason):
            // The gateway refuses a request SwiftNIO reads.
            guard reference.reads.count > index else { break }
            let read = reference.reads[index]
            let lines = { (name: String) in read.fields.filter { $0.lowercased().hasPrefix(name + ":") }.count }
            switch reason {
            case "repeated_authorization" where lines("authorization") > 1: return .repeatedTokenField
            case "repeated_app_check" where lines("x-firebase-appcheck") > 1: return .repeatedTokenField
            case "asterisk_form" where read.path == "*" && read.method != "OPTIONS": return .asteriskForm
            case "duplicate_host" where Self.hasAbsoluteFormTarget(gateway.next): return .absoluteFormHosts
            case "too_large": return .headBytesLimit
            case "transfer_encoding" where read.method == "CONNECT": return .connectTransferEncoding
            default: break
            }
        default:
            break
        }
        // SwiftNIO refuses a request the gateway reads or is reading, for its method.
        guard reference.reads.count <= index, let error = reference.error as? HTTPParserError else { return nil }
        let method =
            reference.reads.count < index
            ? gateway.reads[reference.reads.count].method : String(decoding: gateway.next.prefix { $0 != UInt8(ascii: " ") }, as: UTF8.self)
        let isToken = !method.isEmpty && method.utf8.allSatisfy(HTTPByte.isToken)
        if isToken, error == .invalidMethod, !Self.llhttpMethods.contains(method) { return .unknownMethod }
        // llhttp reads `PRI` only as the start of the HTTP/2 preface, `PRI * HTTP/2.0`.
        if method == "PRI", error == .invalidVersion { return .unknownMethod }
        // A framing field among a chunked body's trailers.
        if reference.reads.count < index, error == .invalidContentLength || error == .unexpectedContentLength || error == .unknown,
            Self.hasFramingTrailer(gateway.reads[reference.reads.count].rawBody)
        {
            return .framingFieldInTrailer
        }
        return nil
    }

    /// Whether a raw chunked body has a `Content-Length` or `Transfer-Encoding` trailer field.
    static func hasFramingTrailer(_ raw: [UInt8]) -> Bool {
        let text = String(decoding: raw, as: UTF8.self).lowercased()
        // After the last chunk (`0`, maybe with extensions); a body of one chunk starts with it.
        guard let last = text.range(of: "\r\n0", options: .backwards) ?? (text.hasPrefix("0") ? text.range(of: "0") : nil) else {
            return false
        }
        let trailers = text[last.upperBound...]
        return trailers.contains("content-length:") || trailers.contains("transfer-encoding:")
    }

    /// Whether the request line at the start of `bytes` has an `http` or `https` absolute-form target.
    static func hasAbsoluteFormTarget(_ bytes: [UInt8]) -> Bool {
        let line = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
        let target = line.drop { $0 != " " }.drop { $0 == " " }.lowercased()
        return target.hasPrefix("http://") || target.hasPrefix("https://")
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
        tally.read += gateway.reads.count
        if case .refused = gateway.ending { tally.refused += 1 }
        let reference = Self.referenceReads(bytes, cuts: cuts)
        if Self.agree(gateway: gateway, reference: reference) { return nil }
        if let exclusion = Self.exclusion(gateway: (gateway.reads, gateway.next, gateway.ending), reference: reference) {
            tally.excluded[exclusion, default: 0] += 1
            return nil
        }
        return describe(
            """
            the gateway and SwiftNIO read the bytes differently
              gateway: \(gateway.reads), then \(gateway.ending)
              SwiftNIO: \(reference.reads) error: \(reference.error.map { String(describing: $0) } ?? "none")
            """
        )
    }

    /// The same requests, ended the same way.
    static func agree(gateway: (reads: [Read], next: [UInt8], ending: Ending, problem: String?), reference: (reads: [Read], error: (any Error)?)) -> Bool {
        let count = gateway.reads.count
        guard reference.reads.prefix(count) == gateway.reads[...] else { return false }
        switch gateway.ending {
        case .allRead:
            return reference.reads.count == count && reference.error == nil
        case .cutShort:
            // SwiftNIO reads no more either. It may refuse the part it has (it checks some rules before the end of
            // the head that the gateway checks at it), or say the input ended in a request.
            return reference.reads.count == count
        case .refused:
            return reference.reads.count == count && reference.error != nil
        case .closed:
            // What follows is not the gateway's to read.
            return reference.reads.count >= count
        }
    }

    struct Tally {
        var messages = 0
        var read = 0
        var refused = 0
        var excluded: [Exclusion: Int] = [:]
    }

    @Test("the gateway reads what SwiftNIO reads", arguments: CodecFuzz.shards)
    func differential(shard: Int) async throws {
        let (run, tally, failures) = try await CodecFuzz.runOffPool(
            shard: shard, messagesOf: RequestGenerator.messageCount(seed:), tally: Tally(), check: Self.check(seed:tally:)
        )
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
        let excluded = Exclusion.allCases.compactMap { exclusion in tally.excluded[exclusion].map { "\(exclusion.rawValue): \($0)" } }
        print(
            "request codec fuzz, shard \(shard): \(run.cases) cases, \(run.messages) messages, \(tally.read) read, \(tally.refused) refused, excluded [\(excluded.joined(separator: ", "))]"
        )
        // The generator must reach both sides of the reader: many requests read, many refused.
        if CodecFuzz.replay == nil {
            #expect(tally.read * 3 > run.messages)
            #expect(tally.refused * 10 > run.cases)
        }
    }
}
