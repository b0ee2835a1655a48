import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypesHTTP1
import Testing
import TestSupport

@testable import Gateway
@testable import HTTPWire

/// The gateway's upstream answer reader (``UpstreamResponseParser``) against SwiftNIO's `HTTPResponseDecoder` as a
/// proxy would configure it (`addHTTPClientHandlers`: default limits, interim answers dropped; then a proxy's answer
/// checks: a status in 100–599 and not 101, no transfer coding but `chunked`), on generated answers (``ResponseGenerator``), one to three back to back, each to a request whose
/// method both readers are told, fed whole and in random pieces, then the end of the input.
///
/// Both must read the same answers — status, fields in order, body bytes — and end the same way: all read and
/// nothing left, bytes left over after the last answer, or refused at the same answer (with or without its head
/// passed on). The gateway's reader must read the same however the bytes arrive.
///
/// Differences kept on purpose (each case is named, counted, and must match exactly this shape):
///
/// | Exclusion                 | Input                                  | Gateway reader              | SwiftNIO (llhttp) | Why                                  |
/// |---------------------------|----------------------------------------|-----------------------------|-------------------|--------------------------------------|
/// | `repeatedContentLength`   | `Content-Length` repeated with one     | reads it, passes one field  | refuses           | RFC 9110 §8.6, RFC 9112 §6.3 item 5: |
/// |                           | value (two lines, or a list `5, 5`)    | on                          |                   | a recipient may take one valid value |
/// | `contentLengthTrailingTab`| `Content-Length: 5\t`                  | reads 5                     | refuses           | RFC 9112 §5: OWS (SP or HTAB) around |
/// |                           |                                        |                             |                   | a field value is not part of it      |
/// | `transferCodingWithout    | a `Transfer-Encoding` other than       | reads it, no body (the      | the proxy's check | RFC 9112 §6.3 item 1: such an answer |
/// | Body`                     | `chunked` on an answer to HEAD, or a   | field is hop-by-hop)        | refuses it (502)  | has no body whatever its fields (a   |
/// |                           | 204 or 304                             |                             |                   | server MAY send TE there, §6.1)      |
/// | `reasonPhraseControl`     | a control byte (not HTAB) in the       | refuses (502)               | reads it          | RFC 9112 §4: reason-phrase is HTAB,  |
/// |                           | reason phrase                          |                             |                   | SP, VCHAR and obs-text only          |
/// | `contentLengthOverEigh    | a `Content-Length` of 19 digits or     | refuses (502) before the    | passes the head   | RFC 9110 §8.6: a recipient must not  |
/// | teenDigits`               | more (10^18 and up)                    | head                        | on                | overflow; no answer is an exabyte    |
/// | `framingFieldInTrailer`   | `Content-Length` or `Transfer-Encoding`| reads the answer; trailers  | refuses           | RFC 9110 §6.5.1: framing fields must |
/// |                           | in a chunked body's trailer section    | are not passed on           |                   | not be trailers; they frame nothing  |
/// | `chunkExtensionAfterTab`  | `5\t;ext` (a tab before a chunk        | reads it                    | refuses           | RFC 9112 §7.1.1: BWS (SP or HTAB)    |
/// |                           | extension)                             |                             |                   | may precede `;`                      |
/// | `interimAnswerFields`     | an interim (1xx) answer with a         | drops the answer (refuses   | refuses, or stops | RFC 9110 §15.2: an interim answer    |
/// |                           | `Connection`, `Content-Length` or      | an invalid `Content-Length`,| after it (`Connec-| ends at its head, and both paths     |
/// |                           | `Transfer-Encoding` field, or a        | or one beside `Transfer-    | tion: close`)     | drop it: these frame nothing         |
/// |                           | control in its reason phrase, or as    | Encoding`)                  |                   |                                      |
/// |                           | HTTP/1.0                               |                             |                   |                                      |
/// | `keepAliveWithoutLength`  | an answer to HEAD, or a 204 or 304,    | keeps the connection        | closes it         | RFC 9112 §6.3 item 1, §9.3: the      |
/// |                           | without `Content-Length`               |                             |                   | answer ends at its head; HTTP/1.1    |
/// |                           |                                        |                             |                   | connections persist                  |
@Suite("Response codec differential fuzz")
struct ResponseCodecFuzzTests {
    /// An answer as the gateway passes it on.
    struct Answer: Equatable, CustomStringConvertible {
        var status: Int
        var fields: [String]
        var body: [UInt8] = []

        var description: String {
            let fields = self.fields.map { $0.count > 80 ? "\($0.prefix(80))… (\($0.utf8.count) bytes)" : $0 }
            return "\(self.status) fields=\(fields) body=\(self.body.count) bytes"
        }
    }

    /// How the reading of a connection ended.
    enum Ending: Equatable, CustomStringConvertible {
        /// Every answer read, nothing left.
        case clean
        /// Bytes after the last answer.
        case extra
        /// The last answer read closes the connection (HTTP/1.0, `Connection: close`, a body delimited by the
        /// close): nothing after it is read, and no other request goes on the connection.
        case closed
        /// Refused during answer `index`, whose head was passed on or not.
        case failed(index: Int, head: Answer?)

        var description: String {
            switch self {
            case .clean: return "clean"
            case .extra: return "bytes after the last answer"
            case .closed: return "closed after the last answer"
            case .failed(let index, let head): return "refused in answer \(index + 1)\(head.map { ", after its head \($0.status) \($0.fields)" } ?? ", before its head")"
            }
        }
    }

    struct Reading: Equatable {
        var answers: [Answer] = []
        var ending: Ending = .clean
        /// Per answer: whether the connection may carry another exchange (not compared with `==`).
        var keepAlive: [Bool] = []
        /// Answers whose `Content-Length` was repeated (the gateway's reading; for the exclusions).
        var repeatedLength: Set<Int> = []
        /// Where each answer starts in the bytes (the gateway's reading; for the exclusions).
        var starts: [Int] = [0]
        /// The proxy's checks refused a head SwiftNIO read (the reference's reading).
        var refusedByRule = false

        static func == (a: Reading, b: Reading) -> Bool { a.answers == b.answers && a.ending == b.ending }

        /// Whether the reference reads what the gateway reads: everything, or up to the close the gateway reads.
        func isRead(by reference: Reading) -> Bool {
            guard self.ending == .closed else { return self == reference }
            return reference.answers.count >= self.answers.count && Array(reference.answers.prefix(self.answers.count)) == self.answers
        }
    }

    enum Exclusion: String, CaseIterable {
        case repeatedContentLength
        case contentLengthTrailingTab
        case transferCodingWithoutBody
        case reasonPhraseControl
        case keepAliveWithoutLength
        case contentLengthOverEighteenDigits
        case framingFieldInTrailer
        case chunkExtensionAfterTab
        case interimAnswerFields
    }

    static func fields(_ fields: HTTPFields) -> [String] {
        fields.map { field in "\(field.name.rawName): \(field.withUnsafeBytesOfValue { String(decoding: $0, as: UTF8.self) })" }
    }

    /// What the gateway's parser reads of `bytes` fed in the pieces `cuts` makes.
    static func gatewayReads(_ bytes: [UInt8], methods: [String], cuts: [Int]) -> Reading {
        var parser = UpstreamResponseParser()
        var reading = Reading()
        var current: Answer?
        var index = 0
        parser.expectResponse(toHEAD: methods[0] == "HEAD")
        var pending = ByteBuffer()
        var start = 0
        /// After an answer's end: whether reading stops here.
        func answerEnded() -> Bool {
            reading.answers.append(current!)
            reading.keepAlive.append(parser.keepAlive)
            reading.starts.append(start - pending.readableBytes)
            current = nil
            index += 1
            guard parser.keepAlive else {
                reading.ending = .closed
                return true
            }
            if index < methods.count { parser.expectResponse(toHEAD: methods[index] == "HEAD") }
            return false
        }
        do {
            for end in cuts + [bytes.count] {
                pending.writeBytes(bytes[start..<end])
                start = end
                while pending.readableBytes > 0 {
                    guard index < methods.count else {
                        reading.ending = .extra
                        return reading
                    }
                    var ended = false
                    try parser.feed(&pending) { event in
                        switch event {
                        case .head(let head):
                            current = Answer(status: head.status.code, fields: Self.fields(head.response.headerFields))
                            if head.repeatedContentLength != nil { reading.repeatedLength.insert(index) }
                        case .body(let buffer):
                            buffer.withUnsafeReadableBytes { current?.body.append(contentsOf: $0) }
                        case .end:
                            ended = true
                        }
                    }
                    guard ended else { break }
                    if answerEnded() { return reading }
                }
            }
            if index < methods.count {
                var ended = false
                try parser.feedEOF { event in if case .end = event { ended = true } }
                if ended, answerEnded() { return reading }
                if index < methods.count { throw UpstreamResponseError.truncated }
            }
        } catch {
            // A head without its end: passed on before the error.
            reading.ending = .failed(index: index, head: current.map { Answer(status: $0.status, fields: $0.fields) })
        }
        return reading
    }

    /// What SwiftNIO reads of `bytes` in the same pieces, with the proxy's checks of each head and its conversion
    /// to HTTP types (which drops whitespace around values, as RFC 9112 §5 says).
    static func referenceReads(_ bytes: [UInt8], methods: [String], cuts: [Int]) -> Reading {
        let channel = EmbeddedChannel()
        var reading = Reading()
        var current: Answer?
        var keepAlive = false
        func drain() throws {
            while let part = try channel.readInbound(as: HTTPClientResponsePart.self) {
                switch part {
                case .head(let head):
                    let fields = HTTPFields(head.headers, splitCookie: false)
                    let status = HTTPResponse.Status(code: Int(head.status.code))
                    guard status.kind != .invalid, status != .switchingProtocols, RequestFraming.hasChunkedOrNoTransferCoding(fields) else {
                        reading.refusedByRule = true
                        throw ChannelError.inputClosed
                    }
                    current = Answer(status: Int(head.status.code), fields: Self.fields(fields))
                    keepAlive = head.isKeepAlive
                case .body(let buffer):
                    buffer.withUnsafeReadableBytes { current?.body.append(contentsOf: $0) }
                case .end:
                    if let answer = current {
                        reading.answers.append(answer)
                        reading.keepAlive.append(keepAlive)
                    }
                    current = nil
                }
            }
        }
        do {
            try channel.pipeline.syncOperations.addHandler(
                ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .drop))
            )
            for method in methods {
                try channel.writeOutbound(HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: "/")))
            }
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
            // The answers decoded before the error.
            if !reading.refusedByRule { try? drain() }
            // A refused head was not passed on.
            let head = reading.refusedByRule ? nil : current.map { Answer(status: $0.status, fields: $0.fields) }
            reading.ending = reading.answers.count >= methods.count ? .extra : .failed(index: reading.answers.count, head: head)
        }
        _ = try? channel.finish(acceptAlreadyClosed: true)
        if reading.ending == .clean, reading.answers.count < methods.count {
            // The input ended with answers missing and no error from the decoder.
            reading.ending = .failed(index: reading.answers.count, head: nil)
        }
        return reading
    }

    /// The exclusion that explains the difference, if any: both read the same answers up to answer `index`, where
    /// they part in exactly the shape of one exclusion.
    static func exclusion(_ bytes: [UInt8], methods: [String], gateway: Reading, reference: Reading) -> Exclusion? {
        let index = min(gateway.answers.count, reference.answers.count)
        guard Array(gateway.answers.prefix(index)) == Array(reference.answers.prefix(index)), index < gateway.starts.count else { return nil }
        // The final head of answer `index` as the gateway reads it (after any interim ones).
        let lines = Self.finalHead(bytes[gateway.starts[index]...])
        let referenceRefusedBeforeHead = reference.ending == .failed(index: index, head: nil)
        let interim = Self.interimHeads(bytes[gateway.starts[index]...])
        if interim.contains(where: { lines in
            lines.dropFirst().contains { ["connection:", "content-length:", "transfer-encoding:"].contains(where: $0.lowercased().hasPrefix) }
                || lines.first.map(Self.hasControlInReason) == true || lines.first?.hasPrefix("HTTP/1.0") == true
        }) {
            return .interimAnswerFields
        }
        if referenceRefusedBeforeHead, gateway.repeatedLength.contains(index) { return .repeatedContentLength }
        if referenceRefusedBeforeHead, !reference.refusedByRule, lines.contains(where: Self.isContentLengthWithTrailingTab) {
            return .contentLengthTrailingTab
        }
        if referenceRefusedBeforeHead, reference.refusedByRule, index < gateway.answers.count,
            methods[index] == "HEAD" || [204, 304].contains(gateway.answers[index].status),
            lines.contains(where: { $0.lowercased().hasPrefix("transfer-encoding:") })
        {
            return .transferCodingWithoutBody
        }
        if case .failed(index, let head?) = reference.ending, head.status == gateway.answers[safe: index]?.status, index + 1 < gateway.starts.count {
            // The chunked body as the gateway read it, line by line.
            let body = String(decoding: bytes[gateway.starts[index]..<gateway.starts[index + 1]], as: UTF8.self).components(separatedBy: "\r\n")
            let trailer = body.reversed().drop { $0.isEmpty }.prefix { !$0.hasPrefix("0") }
            if trailer.contains(where: { ["content-length:", "transfer-encoding:"].contains(where: $0.lowercased().hasPrefix) }) {
                return .framingFieldInTrailer
            }
            let tabBeforeExtension = body.contains { line in
                let size = line.prefix { $0.isHexDigit }
                let rest = line.dropFirst(size.count)
                return !size.isEmpty && rest.hasPrefix("\t") && rest.drop { $0 == " " || $0 == "\t" }.hasPrefix(";")
            }
            if tabBeforeExtension { return .chunkExtensionAfterTab }
        }
        if gateway.ending == .failed(index: index, head: nil), reference.answers.count > index || reference.ending != gateway.ending {
            // A `Content-Length` of 19 digits or more (10^18 bytes and up): not a length any answer has.
            let longLength = lines.contains { line in
                line.lowercased().hasPrefix("content-length:") && line.dropFirst(15).filter({ $0.isASCII && $0.isNumber }).count >= 19
            }
            if longLength { return .contentLengthOverEighteenDigits }
            if lines.first.map(Self.hasControlInReason) == true { return .reasonPhraseControl }
        }
        return nil
    }

    /// The lines of the first head in `bytes` that is not an interim (1xx but 101) one.
    static func finalHead(_ bytes: ArraySlice<UInt8>) -> [String] {
        let text = String(decoding: bytes.prefix(200_000), as: UTF8.self)
        for head in text.components(separatedBy: "\r\n\r\n") {
            let code = head.utf8.dropFirst(9).prefix(3)
            if code.first == UInt8(ascii: "1"), !code.elementsEqual("101".utf8) { continue }
            return head.components(separatedBy: "\r\n")
        }
        return []
    }

    /// The interim (1xx but 101) heads at the start of `bytes`, as lines.
    static func interimHeads(_ bytes: ArraySlice<UInt8>) -> [[String]] {
        let text = String(decoding: bytes.prefix(200_000), as: UTF8.self)
        var heads: [[String]] = []
        for head in text.components(separatedBy: "\r\n\r\n") {
            let code = head.utf8.dropFirst(9).prefix(3)
            guard code.first == UInt8(ascii: "1"), !code.elementsEqual("101".utf8) else { break }
            heads.append(head.components(separatedBy: "\r\n"))
        }
        return heads
    }

    /// Whether a status line's reason phrase holds a control byte other than HTAB.
    static func hasControlInReason(_ statusLine: String) -> Bool {
        statusLine.utf8.dropFirst(13).contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }

    /// Whether answer `index`, which the gateway keeps the connection after and SwiftNIO does not, has no body by
    /// its request or status and no `Content-Length` (llhttp then takes the connection's close as its end).
    static func isKeepAliveWithoutLength(_ bytes: [UInt8], methods: [String], gateway: Reading, index: Int) -> Bool {
        guard methods[index] == "HEAD" || [204, 304].contains(gateway.answers[index].status) else { return false }
        return !Self.finalHead(bytes[gateway.starts[index]...]).contains { $0.lowercased().hasPrefix("content-length:") }
    }

    static func isContentLengthWithTrailingTab(_ line: String) -> Bool {
        guard line.lowercased().hasPrefix("content-length:") else { return false }
        let value = line.dropFirst("content-length:".count).drop { $0 == " " || $0 == "\t" }
        let digits = value.prefix { $0.isASCII && $0.isNumber }
        let rest = value.dropFirst(digits.count)
        return !digits.isEmpty && rest.contains("\t") && rest.allSatisfy { $0 == " " || $0 == "\t" }
    }

    struct Tally {
        var messages = 0
        var read = 0
        var excluded: [Exclusion: Int] = [:]
    }

    static func check(seed: UInt64, tally: inout Tally) -> String? {
        var generator = ResponseGenerator(seed: seed)
        let (bytes, methods) = generator.generateCase()
        let cuts = generator.random.splits(of: bytes.count, pieces: 1 + generator.random.below(6))
        tally.messages += methods.count
        let describe = { (problem: String) in
            CodecFuzz.describe(seed: seed, suite: "ResponseCodecFuzzTests", bytes: bytes, "answers to \(methods): " + problem)
        }
        let whole = Self.gatewayReads(bytes, methods: methods, cuts: [])
        let pieces = Self.gatewayReads(bytes, methods: methods, cuts: cuts)
        guard whole == pieces else {
            return describe("the gateway reads differently in pieces \(cuts)\n  whole: \(whole.answers) \(whole.ending)\n  in pieces: \(pieces.answers) \(pieces.ending)")
        }
        tally.read += whole.answers.count
        let reference = Self.referenceReads(bytes, methods: methods, cuts: cuts)
        // The gateway never keeps a connection SwiftNIO would close.
        for (index, keepAlive) in whole.keepAlive.enumerated() where keepAlive && index < reference.keepAlive.count && !reference.keepAlive[index] {
            guard Self.isKeepAliveWithoutLength(bytes, methods: methods, gateway: whole, index: index) else {
                return describe("the gateway keeps the connection after answer \(index + 1), SwiftNIO closes it")
            }
            tally.excluded[.keepAliveWithoutLength, default: 0] += 1
        }
        if whole.isRead(by: reference) { return nil }
        if let exclusion = Self.exclusion(bytes, methods: methods, gateway: whole, reference: reference) {
            tally.excluded[exclusion, default: 0] += 1
            return nil
        }
        return describe(
            """
            the gateway and SwiftNIO read differently
              gateway:  \(whole.answers) \(whole.ending)
              SwiftNIO: \(reference.answers) \(reference.ending)
            """
        )
    }

    @Test("the gateway reads upstream answers as SwiftNIO reads them", arguments: CodecFuzz.shards)
    func differential(shard: Int) async throws {
        let (run, tally, failures) = try await CodecFuzz.runOffPool(
            shard: shard, messagesOf: ResponseGenerator.messageCount(seed:), tally: Tally(), check: Self.check(seed:tally:)
        )
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
        print("response codec fuzz, shard \(shard): \(run.cases) cases, \(run.messages) messages, \(tally.read) read, excluded \(tally.excluded)")
        if CodecFuzz.replay == nil { #expect(tally.read * 3 > run.messages) }
    }
}

fileprivate extension Array {
    subscript(safe index: Int) -> Element? { self.indices.contains(index) ? self[index] : nil }
}
