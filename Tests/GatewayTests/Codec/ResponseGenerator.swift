/// Generates upstream answers for the differential fuzz, valid and invalid mixed, each with the method of the request
import TestSupport
/// it answers: status lines (1xx before a final answer, 101, 204, 304, codes out of range, odd reason phrases), fields,
/// and every framing (`Content-Length`, chunked, delimited by the close, none for HEAD, 204 and 304).
struct ResponseGenerator {
    var random: SplitMix64

    init(seed: UInt64) {
        self.random = SplitMix64(seed: seed)
    }

    /// One to three answers back to back (each to its own request), sometimes cut short.
    mutating func generateCase() -> (bytes: [UInt8], methods: [String]) {
        let count = self.random.chance(70) ? 1 : 2 + self.random.below(2)
        var bytes: [UInt8] = []
        var methods: [String] = []
        for index in 0..<count {
            let method = self.random.chance(15) ? "HEAD" : self.random.pick(["GET", "GET", "POST"])
            methods.append(method)
            bytes += self.message(toHEAD: method == "HEAD", last: index == count - 1)
        }
        if self.random.chance(8), bytes.count > 1 {
            bytes.removeLast(1 + self.random.below(min(bytes.count - 1, 40)))
        }
        return (bytes, methods)
    }

    /// How many messages the case of `seed` holds.
    static func messageCount(seed: UInt64) -> Int {
        var random = SplitMix64(seed: seed)
        return random.chance(70) ? 1 : 2 + random.below(2)
    }

    // MARK: - Parts

    private mutating func message(toHEAD: Bool, last: Bool) -> [UInt8] {
        let plain = self.random.chance(35)
        var bytes: [UInt8] = []
        if self.random.chance(8) {
            // Interim answers first.
            for _ in 0...self.random.below(2) {
                bytes += Array("HTTP/1.1 \(self.random.pick([100, 102, 103])) Continue\r\n".utf8)
                if self.random.chance(30) { bytes += Array("Link: </a.css>; rel=preload\r\n".utf8) }
                bytes += [0x0D, 0x0A]
            }
        }
        let code = self.code(plain: plain)
        bytes += self.statusLine(code: code, plain: plain)

        var fields: [[UInt8]] = []
        let extra = self.random.chance(5) ? 20 + self.random.below(70) : self.random.below(6)
        for _ in 0..<extra { fields.append(self.field(plain: plain)) }
        let hasBody = !toHEAD && code != 204 && code != 304 && !(100...199).contains(code)
        let (framingFields, body) = self.framing(plain: plain, hasBody: hasBody, last: last)
        for field in framingFields { fields.insert(field, at: self.random.below(fields.count + 1)) }
        for field in fields { bytes += field }
        bytes += self.random.chance(plain ? 0 : 3) ? self.random.pick([[0x0A], [0x0D]]) : [0x0D, 0x0A]
        return bytes + body
    }

    private mutating func code(plain: Bool) -> Int {
        if plain || self.random.chance(60) { return self.random.pick([200, 200, 200, 201, 204, 206, 301, 304, 404, 500, 503]) }
        return self.random.pick([101, 100, 199, 99, 600, 999, 0, 204, 304, 205, 418, 599, 299])
    }

    private mutating func statusLine(code: Int, plain: Bool) -> [UInt8] {
        let codeText = code < 100 ? threeDigits(code) : String(code)
        if plain || self.random.chance(70) {
            let reason = self.random.pick(["OK", "Not Found", "Whatever", "Created Thing"])
            return Array("HTTP/1.1 \(codeText) \(reason)\r\n".utf8)
        }
        switch self.random.below(16) {
        case 0: return Array("HTTP/1.0 \(codeText) OK\r\n".utf8)
        case 1: return Array("HTTP/1.1 \(codeText)\r\n".utf8)
        case 2: return Array("HTTP/1.1 \(codeText) \r\n".utf8)
        case 3: return Array("HTTP/1.1 \(codeText) R\u{e9}ason".utf8) + [0xE9, 0x0D, 0x0A]
        case 4: return Array("HTTP/1.1 \(codeText) A\tB\r\n".utf8)
        case 5: return Array("HTTP/1.1 \(codeText) A".utf8) + [0x01] + [0x0D, 0x0A]
        case 6: return Array("HTTP/1.1 \(codeText)0 OK\r\n".utf8)
        case 7: return Array("HTTP/1.1 \(codeText.prefix(2)) OK\r\n".utf8)
        case 8: return Array("HTTP/2.0 \(codeText) OK\r\n".utf8)
        case 9: return Array("HTTP/1.1  \(codeText) OK\r\n".utf8)
        case 10: return Array("http/1.1 \(codeText) OK\r\n".utf8)
        case 11: return Array("HTTP/1.1 \(codeText)\tOK\r\n".utf8)
        case 12: return Array("HTTP/1.1 \(codeText) OK\n".utf8)
        case 13: return Array("HTTP/1.2 \(codeText) OK\r\n".utf8)
        case 14: return Array("HTTP/1.1 \(codeText) OK".utf8) + [0x7F, 0x0D, 0x0A]
        default: return Array("HTTP/1.1 +\(codeText.dropFirst()) OK\r\n".utf8)
        }
    }

    private func line(_ name: String, _ value: String) -> [UInt8] {
        Array("\(name): \(value)\r\n".utf8)
    }

    private mutating func field(plain: Bool) -> [UInt8] {
        let names = ["Content-Type", "Server", "Cache-Control", "ETag", "Set-Cookie", "Vary", "X-Upstream", "Date", "Connection", "Keep-Alive"]
        let values = ["application/json", "stub/1.0", "no-store", "\"e1\"", "a=1; Path=/", "Accept-Encoding", "", "x  y", "close", "keep-alive"]
        var name = Array(self.random.pick(names).utf8)
        var value = Array(self.random.pick(values).utf8)
        var separator = Array(": ".utf8)
        var end: [UInt8] = [0x0D, 0x0A]
        if plain || self.random.chance(60) { return name + separator + value + end }
        switch self.random.below(18) {
        case 0: name = Array("X_Under".utf8)
        case 1: separator = Array(" : ".utf8)
        case 2: separator = Array(":".utf8)
        case 3: value = Array("\t padded \t".utf8)
        case 4: end = Array("\r\n folded".utf8) + [0x0D, 0x0A]
        case 5: value = Array("a".utf8) + [0x0D] + Array("b".utf8)
        case 6: end = [0x0A]
        case 7: value += [0x00]
        case 8: value += [0x80, 0xC3, 0xA9, 0xFF]
        case 9: name = []
        case 10: name = Array("X(a)".utf8)
        case 11: name = [0xC3, 0xA9]
        case 12: name = Array("Connection".utf8); value = Array(self.random.pick(["close", "keep-alive", "close, x-a", "x-a", "Close"]).utf8)
        case 13: value += [0x7F]
        case 14: value = [UInt8](repeating: UInt8(ascii: "v"), count: 100 + self.random.below(20_000))
        case 15: value += [0x01]
        case 16: end = Array(" \r\n".utf8)
        default: name = Array("x-\(self.random.below(100))".utf8)
        }
        return name + separator + value + end
    }

    /// Framing fields and the body that goes with them (none where the answer has no body).
    private mutating func framing(plain: Bool, hasBody: Bool, last: Bool) -> (fields: [[UInt8]], body: [UInt8]) {
        let choices = plain ? (last ? 4 : 3) : 14
        let choice = self.random.below(choices)
        let length = self.random.chance(90) ? self.random.below(24) : self.random.below(20_000)
        let body = hasBody ? self.body(length) : []
        switch choice {
        case 0: return ([self.line("Content-Length", String(length))], body)
        case 1: return ([self.line("Transfer-Encoding", "chunked")], hasBody ? self.chunked(plain: plain) : [])
        case 2: return ([self.line("Content-Length", "0")], [])
        case 3:
            // Delimited by the close (when the answer has a body).
            return ([], body)
        case 4:
            let spellings = [
                "0\(length)", "+\(length)", "-1", " \(length) ", "\(length), \(length)", "\(length),\(length + 1)", "0x\(length)", "",
                "\(length)\t", "00", "999999999999999999", "9223372036854775807", "9223372036854775808", "99999999999999999999",
            ]
            return ([self.line("Content-Length", self.random.pick(spellings))], body)
        case 5:
            let other = self.random.chance(50) ? length : length + 1
            return ([self.line("Content-Length", String(length)), self.line("content-length", String(other))], body)
        case 6:
            let codings = ["chunked", "Chunked", "gzip", "gzip, chunked", "chunked, chunked", "chunked ,", "identity", "chunked, gzip", "x"]
            return ([self.line("Transfer-Encoding", self.random.pick(codings))], hasBody ? self.chunked(plain: false) : [])
        case 7:
            return ([self.line("Transfer-Encoding", "gzip"), self.line("Transfer-Encoding", "chunked")], hasBody ? self.chunked(plain: false) : [])
        case 8:
            return ([self.line("Transfer-Encoding", "chunked"), self.line("Content-Length", String(length))], hasBody ? self.chunked(plain: false) : [])
        case 9:
            let declared = max(0, length + self.random.pick([-3, -1, 1, 5]))
            return ([self.line("Content-Length", String(declared))], body)
        case 10:
            // A body where none belongs (HEAD, 204, 304): read as the next answer's bytes.
            return ([self.line("Content-Length", String(length))], self.body(length))
        case 11: return ([self.line("Transfer-Encoding", "chunked")], hasBody ? self.chunked(plain: false) : [])
        case 12: return ([], last ? body : [])
        default: return ([self.line("Content-Length", String(length))], body)
        }
    }

    private mutating func body(_ length: Int) -> [UInt8] {
        self.random.body(length, smuggled: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    }

    private mutating func chunked(plain: Bool) -> [UInt8] {
        self.random.chunkedBody(plain: plain) { $0 + "\t;e" }
    }
}

/// `code` as three digits (`099`, `000`).
private func threeDigits(_ code: Int) -> String {
    let digits = "\(code)"
    return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
}
