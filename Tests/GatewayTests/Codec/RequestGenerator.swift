/// Generates HTTP/1.x requests for the differential fuzz, valid and invalid mixed: each part of a message (method,
import TestSupport
/// target, version, line ends, fields, framing, body) is usually well formed and sometimes broken in one of the ways
/// parsers are known to read differently.
struct RequestGenerator {
    var random: SplitMix64

    init(seed: UInt64) {
        self.random = SplitMix64(seed: seed)
    }

    /// One to three requests back to back, sometimes cut short.
    mutating func generateCase() -> (bytes: [UInt8], messages: Int) {
        let count = self.random.chance(70) ? 1 : 2 + self.random.below(2)
        var bytes: [UInt8] = []
        for _ in 0..<count { bytes += self.message() }
        if self.random.chance(8), bytes.count > 1 {
            bytes.removeLast(1 + self.random.below(min(bytes.count - 1, 40)))
        }
        return (bytes, count)
    }

    /// How many messages the case of `seed` holds (without generating the rest of it).
    static func messageCount(seed: UInt64) -> Int {
        var random = SplitMix64(seed: seed)
        return random.chance(70) ? 1 : 2 + random.below(2)
    }

    // MARK: - Parts

    private mutating func message() -> [UInt8] {
        // Nearly half the messages are plain (nothing broken), so that every rule is exercised on accepted requests.
        let plain = self.random.chance(45)
        var head: [UInt8] = []
        head += self.method(plain: plain)
        head += self.random.chance(plain ? 0 : 2) ? Array("  ".utf8) : [UInt8(ascii: " ")]
        head += self.target(plain: plain)
        head += self.random.chance(plain ? 0 : 2) ? [UInt8(ascii: "\t")] : [UInt8(ascii: " ")]
        head += self.version(plain: plain)
        head += self.lineEnd(plain: plain)

        var fields: [[UInt8]] = []
        let hostChoice = plain ? 0 : self.random.below(20)
        switch hostChoice {
        case 0...14: fields.append(self.line("Host", self.hostValue(plain: plain)))
        case 15: break
        case 16:
            fields.append(self.line("Host", "a.example"))
            fields.append(self.line("host", self.random.pick(["a.example", "b.example"])))
        default: fields.append(self.line(self.random.pick(["HOST", "host", "Host "]), self.hostValue(plain: plain)))
        }
        if self.random.chance(30) { fields.append(self.line("Authorization", "Bearer " + self.token())) }
        if !plain, self.random.chance(3) { fields.append(self.line("Authorization", "Bearer x")) }
        if self.random.chance(10) { fields.append(self.line("X-Firebase-AppCheck", self.token())) }
        if !plain, self.random.chance(2) { fields.append(self.line("x-firebase-appcheck", "y")) }
        let extra = self.random.chance(5) ? 20 + self.random.below(110) : self.random.below(6)
        for _ in 0..<extra { fields.append(self.field(plain: plain)) }

        let (framingFields, body) = self.framing(plain: plain)
        for field in framingFields { fields.insert(field, at: self.random.below(fields.count + 1)) }
        if !plain, self.random.chance(20) { fields.shuffle(using: &self.random) }
        for field in fields { head += field }
        head += self.lineEnd(plain: plain)
        // Empty lines before a request line are skipped (RFC 9112 §2.2).
        if !plain, self.random.chance(3) { head = [0x0D, 0x0A] + head }
        return head + body
    }

    private mutating func method(plain: Bool) -> [UInt8] {
        let known = ["GET", "GET", "GET", "HEAD", "POST", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]
        if plain || self.random.chance(70) { return Array(self.random.pick(known).utf8) }
        let odd = [
            "CONNECT", "TRACE", "PURGE", "MKCOL", "REPORT", "M-SEARCH", "FOO", "BREW", "get", "Get", "G(T", "GE\u{01}T", "",
            "ABCDEFGHIJKLMNOPQRSTUVWXY", "GETT", "QUERY", "PRI", "SOURCE", "LINK", "X_Y",
        ]
        return Array(self.random.pick(odd).utf8)
    }

    private mutating func target(plain: Bool) -> [UInt8] {
        let plainTargets = ["/", "/v1/me", "/api/items/42", "/search?q=a+b&n=1", "/a/b/c/", "/%41%2Fb", "/~user/x.json", "/a;p=1"]
        if plain || self.random.chance(60) {
            var target = self.random.pick(plainTargets)
            if self.random.chance(10) { target += String(repeating: "x", count: self.random.below(3000)) }
            return Array(target.utf8)
        }
        switch self.random.below(16) {
        case 0: return Array("*".utf8)
        case 1:
            let absolute = [
                "http://a.example/x", "https://b.example:8443/y?z", "http://u@a.example/", "http://a.example", "http://a.example?q=1",
                "HTTP://A.example/x", "ftp://a.example/x", "http://a.example:8080/p/{x}", "http://[::1]:80/", "http://a.example:port/",
                "http://a%zz/", "https://a.example/%7e/b;c",
            ]
            return Array(self.random.pick(absolute).utf8)
        case 2: return Array("a.example:443".utf8)
        case 3: return Array("/a#frag".utf8)
        case 4: return Array("/%zz/%4".utf8)
        case 5: return Array("/a b".utf8)
        case 6: return Array("/a".utf8) + [self.random.pick([0x00, 0x01, 0x09, 0x0B, 0x7F])] + Array("b".utf8)
        case 7: return Array("/caf".utf8) + [0xC3, 0xA9]
        case 8: return [UInt8(ascii: "/")] + [UInt8](repeating: UInt8(ascii: "a"), count: 20_000 + self.random.below(30_000))
        case 9: return Array("/{x}|^`\\\"<>".utf8)
        case 10: return []
        case 11: return Array("x/y".utf8)
        case 12: return Array("//a.example/..%2f".utf8)
        case 13: return Array("/a\r".utf8)
        case 14: return Array("/?".utf8) + [0xFF]
        default: return Array("/a/./b/../c".utf8)
        }
    }

    private mutating func version(plain: Bool) -> [UInt8] {
        if plain || self.random.chance(75) { return Array("HTTP/1.1".utf8) }
        return Array(self.random.pick(["HTTP/1.0", "HTTP/1.0", "HTTP/2.0", "HTTP/1.2", "HTTP/1", "http/1.1", "HTTP/11", "HTTP/1.1 ", "HTTP/0.9", "HTTP/3.0", ""]).utf8)
    }

    private mutating func lineEnd(plain: Bool) -> [UInt8] {
        if plain || self.random.chance(96) { return [0x0D, 0x0A] }
        return self.random.pick([[0x0A], [0x0D], [0x0D, 0x0D, 0x0A], [0x0A, 0x0D]])
    }

    private mutating func hostValue(plain: Bool) -> String {
        if plain || self.random.chance(85) { return self.random.pick(["a.example", "a.example:8080", "127.0.0.1", "[::1]:80", "localhost"]) }
        return self.random.pick(["", "a b", "a.example:port", "a/b", "[::1", "a%2e", "a%zz", "a.example:99999", "a@b", "ä"])
    }

    private mutating func token() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
        return String((0..<(10 + self.random.below(60))).map { _ in self.random.pick(alphabet) })
    }

    private func line(_ name: String, _ value: String) -> [UInt8] {
        Array("\(name): \(value)\r\n".utf8)
    }

    /// A field that is neither `Host` nor framing (mostly), possibly broken.
    private mutating func field(plain: Bool) -> [UInt8] {
        let names = ["Accept", "User-Agent", "X-Request-Id", "Cookie", "Accept-Encoding", "X-Forwarded-For", "Cache-Control", "If-None-Match", "X-A"]
        let values = ["*/*", "curl/8.0", "abc-123", "a=1; b=2", "gzip, br", "10.0.0.1", "no-cache", "\"e1\"", "", "x y z"]
        var name = Array(self.random.pick(names).utf8)
        var value = Array(self.random.pick(values).utf8)
        var separator = Array(": ".utf8)
        var end: [UInt8] = [0x0D, 0x0A]
        if plain || self.random.chance(60) { return name + separator + value + end }
        switch self.random.below(24) {
        case 0: name = Array(self.random.pick(["Transfer_Encoding", "X_Under", "Content_Length", "Keep_Alive"]).utf8)
        case 1: separator = Array(" : ".utf8)
        case 2: separator = Array(":".utf8)
        case 3: separator = Array(":\t\t".utf8)
        case 4: value = Array("   padded   ".utf8)
        case 5: value += Array(" \t".utf8)
        case 6: end = Array("\r\n folded".utf8) + [0x0D, 0x0A]
        case 7: value = Array("a".utf8) + [0x0D] + Array("b".utf8)
        case 8: end = [0x0A]
        case 9: value += [0x00]
        case 10: value += [0x80, 0xC3, 0xA9, 0xFF]
        case 11: value = []
        case 12: name = []
        case 13: name = Array("X(a)".utf8)
        case 14: name = Array("X-\u{7F}".utf8)
        case 15: name = [0xC3, 0xA9]
        case 16:
            name = Array("Connection".utf8)
            value = Array(self.random.pick(["close", "keep-alive", "Upgrade", "close, x-a", "te", "Keep-Alive, upgrade"]).utf8)
        case 17: name = Array("Upgrade".utf8); value = Array("h2c".utf8)
        case 18:
            name = Array("Expect".utf8)
            value = Array(self.random.pick(["100-continue", "100-Continue", "200-ok", "100-continue, x", ""]).utf8)
        case 19: value += [0x7F]
        case 20: value = [UInt8](repeating: UInt8(ascii: "v"), count: 100 + self.random.below(40_000))
        case 21: name = Array("Max-Forwards".utf8); value = Array("0".utf8)
        case 22: value += [0x01]
        default: name = Array("x-\(self.random.below(100))".utf8)
        }
        return name + separator + value + end
    }

    /// Framing fields (`Content-Length`, `Transfer-Encoding`) and the body that goes with them.
    private mutating func framing(plain: Bool) -> (fields: [[UInt8]], body: [UInt8]) {
        let choice = plain ? self.random.below(3) : self.random.below(14)
        let bodyLength = self.random.chance(90) ? self.random.below(24) : self.random.below(20_000)
        let body = self.body(bodyLength)
        switch choice {
        case 0: return ([], [])
        case 1: return ([self.line("Content-Length", String(bodyLength))], body)
        case 2: return ([self.line("Transfer-Encoding", "chunked")], self.chunked(plain: plain))
        case 3:
            // Content-Length spelt oddly.
            let spellings = [
                "0\(bodyLength)", "+\(bodyLength)", "-1", " \(bodyLength) ", "\(bodyLength), \(bodyLength)", "\(bodyLength),\(bodyLength + 1)",
                "0x\(bodyLength)", "", "1e2", "\(bodyLength)\t", "00", "9223372036854775807", "9223372036854775808",
                "18446744073709551616", "1000000000000000000", "99999999999999999999", "18446744073709551615", "\t\(bodyLength)",
                "\(bodyLength)  ", "000\(bodyLength)",
            ]
            return ([self.line("Content-Length", self.random.pick(spellings))], body)
        case 4:
            let other = self.random.chance(50) ? bodyLength : bodyLength + 1
            return ([self.line("Content-Length", String(bodyLength)), self.line("content-length", String(other))], body)
        case 5:
            let codings = ["chunked", "Chunked", "CHUNKED", "gzip", "gzip, chunked", "chunked, chunked", "chunked ,", "chunked\t", "identity", " chunked", "chunked, gzip", "x"]
            return ([self.line("Transfer-Encoding", self.random.pick(codings))], self.chunked(plain: false))
        case 6:
            return ([self.line("Transfer-Encoding", "gzip"), self.line("Transfer-Encoding", "chunked")], self.chunked(plain: false))
        case 7:
            return ([self.line("Transfer-Encoding", "chunked"), self.line("Content-Length", String(bodyLength))], self.chunked(plain: false))
        case 8:
            // A body shorter or longer than declared: the rest is read as the next message.
            let declared = max(0, bodyLength + self.random.pick([-3, -1, 1, 5]))
            return ([self.line("Content-Length", String(declared))], body)
        case 9: return ([self.line("Transfer-Encoding", "chunked")], self.chunked(plain: false))
        case 10: return ([self.line("Content-Length", String(bodyLength))], body)
        default: return ([], [])
        }
    }

    private mutating func body(_ length: Int) -> [UInt8] {
        self.random.body(length, smuggled: "GET /admin HTTP/1.1\r\nHost: a.example\r\n\r\n")
    }

    /// A chunked body: chunks, the last chunk, trailers; when not plain, sometimes broken.
    private mutating func chunked(plain: Bool) -> [UInt8] {
        self.random.chunkedBody(plain: plain) { "0x" + $0 }
    }
}
