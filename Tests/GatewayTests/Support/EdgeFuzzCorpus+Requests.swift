import Foundation

/// Mutated request lines, mutated header sections, random bytes.
extension EdgeFuzzCorpus {
    // MARK: 1. Request lines

    mutating func requestLineCase(_ index: Int) -> FuzzCase {
        let method =
            self.chance(0.6)
            ? self.pick(["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"])
            : self.pick([
                "get", "Get", "G ET", "GET\t", "", "PRI", "MKCOL", "PURGE", "QUERY", "SEARCH", String(repeating: "X", count: 300),
                "G\u{C9}T", "\u{0}GET", "GET/", "1GET", "-", self.word("ABCDEFGHIJKLMNOPQRSTUVWXYZ!#$%&'*+-.^_`|~", 1...12),
            ])
        let path = self.routePath()
        let long = { (count: Int) in "/open/" + String(repeating: "a", count: count) }
        let target = self.pick([
            path, path, path, "*", "http://x\(path)", "http://127.0.0.1:1\(path)?q", "https://[::1]\(path)", "//\(path)", "\(path)/",
            path.uppercased(), String(path.dropFirst()), "/%00", "\(path)%00", "/media/%00%00", "/open/%2e%2e/x", "/open/a/../b",
            "/open/.%2E/echo", "/api/..%2f..%2fx", long(1000), long(9000), long(self.target.maxHeaderBytes - 40),
            long(self.target.maxHeaderBytes + 100), "\(path)?\(self.word("a=&%;+#?/[]@!$'()*,\\\"<>^`{|}~", 1...40))", "\(path)#frag",
            "\(path)?%zz=%%&&==;", "/media/\u{E9}t\u{E9}", "/\u{FF}\u{FE}", "", " ", "/\\..\\", "x:443", "/open/echo\u{7F}",
            "/open/echo?\u{1}", "\(path) extra",
        ])
        let version =
            self.chance(0.8)
            ? "HTTP/1.1"
            : self.pick(["HTTP/1.0", "HTTP/1.2", "HTTP/2.0", "HTTP/0.9", "http/1.1", "HTTP/1.1 ", "HTTP/11", "HTTP/1.", "", "HTTP/1.1\t", "HTTP/3"])
        let separator = self.chance(0.9) ? " " : self.pick(["  ", "\t", "\u{B}"])
        let lineEnd = self.chance(0.95) ? "\r\n" : "\n"
        var text = method + separator + target + separator + version + lineEnd
        if self.chance(0.9) { text += "Host: gateway.test\r\n" }
        for (name, value) in self.credentials() { text += "\(name): \(value)\r\n" }
        if method == "POST" || method == "PUT", self.chance(0.5) { text += "Content-Length: 0\r\n" }
        text += "\r\n"
        // Bytes beyond Latin-1 in the text stand for themselves (`\u{FF}` is the byte 0xFF, `\u{E9}` 0xE9).
        let bytes = text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        return FuzzCase(
            // `PRI` starts the HTTP/2 preface: the parser waits for its last bytes, so end the connection.
            label: "request-line#\(index)", bytes: bytes, heads: [method == "HEAD"], halfClose: method == "PRI",
            mayReachUpstream: self.mayReachUpstream(target)
        )
    }

    // MARK: 2. Header sections

    mutating func headerCase(_ index: Int) -> FuzzCase {
        let path = self.routePath()
        var (method, fields, body) = self.plausible(path)
        var raw: [UInt8]? = nil
        var halfClose = false
        var heads = [method == "HEAD"]
        var extra = ""
        let kind = self.int(0...21)
        switch kind {
        case 0:  // a second Host, the same or another
            fields.append(("Host", self.chance(0.3) ? "gateway.test" : "evil.test"))
        case 1:  // no Host
            fields.removeAll { $0.0 == "Host" }
        case 2:  // a strange Host
            fields.removeAll { $0.0 == "Host" }
            fields.append(("Host", self.pick(["", " ", "a b", "x@y", "[::1", "h\u{E9}", "\u{1}", String(repeating: "h", count: 5000), "h:99999"])))
        case 3:  // obs-fold
            extra = "X-Folded: one\r\n" + self.pick([" two", "\ttwo", "  "]) + "\r\n"
        case 4:  // a bare LF line end
            extra = "X-Bare: 1\n" + (self.chance(0.5) ? "X-After: 2\r\n" : "")
        case 5:  // a bare CR
            extra = "X-Cr: 1\rX-After: 2\r\n"
        case 6:  // NUL and other controls in a value
            extra = "X-Control: a\(self.pick(["\u{0}", "\u{1}", "\u{7F}", "\u{1B}[31m", "\u{8}"]))b\r\n"
        case 7:  // bytes beyond ASCII in a value
            extra = "X-Text: " + self.pick(["caf\u{E9}", "\u{FF}\u{FE}", "\u{C3}\u{A9}", "\u{80}"]) + "\r\n"
        case 8:  // a broken field name
            extra =
                self.pick([
                    "X A: 1", "X-A : 1", ": 1", "X-A", "X\u{0}A: 1", "\u{C4}: 1", "(x): 1", String(repeating: "N", count: 5000) + ": 1", " X-Lead: 1",
                ]) + "\r\n"
        case 9:  // a value just under or over the header size limit
            let size = self.target.maxHeaderBytes - 300 + self.int(-100...500)
            extra = "X-Big: " + String(repeating: "v", count: max(0, size)) + "\r\n"
        case 10:  // many fields, around the count limit
            let count = self.pick([self.target.maxHeaderCount - 8, self.target.maxHeaderCount - 2, self.target.maxHeaderCount + 1, 300, 1000])
            extra = (0..<count).map { "X-F\($0): \($0)\r\n" }.joined()
        case 11:  // Content-Length twice
            let first = self.int(0...20)
            let second = self.chance(0.3) ? first : self.int(0...20)
            fields.removeAll { $0.0 == "Content-Length" }
            fields += [("Content-Length", String(first)), ("Content-Length", String(second))]
            body = Array(repeating: UInt8(ascii: "a"), count: max(first, second))
            halfClose = true
        case 12:  // Content-Length with Transfer-Encoding
            fields.removeAll { $0.0 == "Content-Length" }
            let inner = Array("smuggled".utf8)
            fields += [("Content-Length", String(self.int(0...40))), ("Transfer-Encoding", "chunked")]
            if self.chance(0.5) { fields.reverse() }
            body = self.chunked(inner)
            halfClose = true
        case 13:  // Transfer-Encoding other than exactly chunked
            fields.removeAll { $0.0 == "Content-Length" }
            let codings = self.pick([
                ["gzip, chunked"], ["chunked, gzip"], ["identity"], ["gzip"], ["chunked, chunked"], ["CHUNKED"], [" chunked"],
                ["chunked;q=1"], ["x-chunked"], ["gzip", "chunked"], ["chunked", "chunked"], ["identity, chunked"], [",chunked"], [""],
            ])
            fields += codings.map { ("Transfer-Encoding", $0) }
            body = self.chunked(body.isEmpty ? Array("{}".utf8) : body)
            halfClose = true
        case 14:  // a bad chunk
            fields.removeAll { $0.0 == "Content-Length" }
            fields.append(("Transfer-Encoding", "chunked"))
            body = Array(
                self.pick([
                    "zz\r\nab\r\n0\r\n\r\n", "-1\r\n\r\n", "ffffffffffffffffffff\r\n", "1;ext=\u{1}\r\na\r\n0\r\n\r\n", "5\r\nab\r\n0\r\n\r\n",
                    "3\r\nabcdef\r\n0\r\n\r\n", "0\r\n", "1\r\na", "0\r\nTrailer-Field: x\r\n\r\n", " 5\r\nabcde\r\n0\r\n\r\n",
                    "5 \r\nabcde\r\n0\r\n\r\n", "0x5\r\nabcde\r\n0\r\n\r\n", "5\nabcde\n0\n\n", "",
                ]).utf8)
            halfClose = true
        case 15:  // a body cut short
            fields.removeAll { $0.0 == "Content-Length" }
            let declared = self.int(1...5000)
            fields.append(("Content-Length", String(declared)))
            body = Array(repeating: UInt8(ascii: "{"), count: self.int(0...(declared - 1)))
            halfClose = true
        case 16:  // pipelined requests
            var all: [UInt8] = []
            heads = []
            for _ in 0..<self.int(2...6) {
                let next = self.routePath()
                let (nextMethod, nextFields, nextBody) = self.plausible(next)
                all += Self.request(nextMethod, next, fields: nextFields, body: nextBody)
                heads.append(nextMethod == "HEAD")
            }
            raw = all
        case 17:  // a CONNECT or upgrade request with requests pipelined after it
            let upgrade =
                self.chance(0.5)
                ? Self.request("CONNECT", self.pick(["gateway.test:443", "/open/echo"]), fields: [("Host", "gateway.test:443")])
                : Self.request(
                    "GET", path, fields: [("Host", "gateway.test"), ("Connection", "Upgrade"), ("Upgrade", self.pick(["websocket", "h2c", "foo"]))]
                )
            raw = upgrade + Self.request("GET", "/healthz", fields: [("Host", "gateway.test")])
            heads = [false, false]
        case 18:  // Expect
            fields.append(("Expect", self.pick(["100-continue", "100-Continue", "200-ok", ""])))
            if body.isEmpty {
                body = Array("{\"x\":1}".utf8)
                fields.removeAll { $0.0 == "Content-Length" }
                fields.append(("Content-Length", String(body.count)))
            }
        case 19:  // Content-Length that is not a length
            fields.removeAll { $0.0 == "Content-Length" }
            fields.append(("Content-Length", self.pick(["-1", "1e3", "abc", " ", "", "+5", "99999999999999999999", "0x10", "5,5", "5, 5", "١"])))
            body = Array("hello".utf8)
            halfClose = true
        case 20:  // credentials and connection options, doubled or odd
            extra = self.pick([
                "Authorization: Bearer a.b.c\r\nAuthorization: Bearer d.e.f\r\n", "Authorization: " + String(repeating: "B", count: 17000) + "\r\n",
                "Authorization: bearer\r\n", "Authorization: Basic eDp5\r\n", "X-Request-ID: \(String(repeating: "r", count: 300))\r\n",
                "Connection: close, X-Foo, Host, Content-Length\r\n", "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n",
                "Connection: keep-alive\r\nKeep-Alive: timeout=1\r\n", "Cookie: a=1; b=2\r\nCookie: c=3\r\n",
            ])
        default:  // identity headers a client must not be believed on
            extra =
                "X-User-Id: \(self.pick(["admin", "", "a b", "\u{E9}"]))\r\nX-StoryGate-Identity: v1.1.YQ.Yg.\(self.word("ABCabc-_", 0...43))\r\n"
                + "X-Forwarded-For: \(self.pick(["1.2.3.4", "junk", "", "::1, 10.0.0.1"]))\r\nForwarded: for=6.6.6.6\r\n"
        }
        var bytes = raw ?? Self.request(method, path, fields: fields)
        if raw == nil {
            if !extra.isEmpty {
                // Before the blank line that ends the head.
                bytes.removeLast(2)
                bytes += extra.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) } + [13, 10]
            }
            bytes += body
        }
        return FuzzCase(
            label: "header-section/\(kind)#\(index)", bytes: bytes, heads: heads, halfClose: halfClose,
            mayReachUpstream: self.mayReachUpstream(String(decoding: bytes.prefix(2000), as: UTF8.self))
        )
    }

    // MARK: 3. Random bytes

    mutating func randomBytesCase(_ index: Int) -> FuzzCase {
        var bytes: [UInt8]
        switch self.int(0...2) {
        case 0:
            bytes = self.bytes(self.int(0...1500))
        case 1:
            let tokens = [
                "GET", "POST", "HEAD", " ", "/", "/healthz", "/open/echo", "/functions/v1/story-generation", "HTTP/1.1", "HTTP/1.0", "\r\n", "\n",
                "\r\n\r\n", ":", "Host", "Content-Length", "Transfer-Encoding", "chunked", "0", "5", "ffff", "Connection", "close", "Upgrade",
                "{", "}", "\"", "\u{0}", "\u{FF}", "%", "?", "#",
            ]
            bytes = Array((0..<self.int(1...60)).map { _ in self.pick(tokens) }.joined().unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) })
        default:
            let path = self.routePath()
            let (method, fields, body) = self.plausible(path)
            bytes = Self.request(method, path, fields: fields, body: body)
            for _ in 0..<self.int(1...8) {
                guard !bytes.isEmpty else { break }
                let at = self.int(0...(bytes.count - 1))
                switch self.int(0...3) {
                case 0: bytes[at] ^= UInt8(1 << self.int(0...7))
                case 1: bytes.insert(self.bytes(1)[0], at: at)
                case 2: bytes.remove(at: at)
                default: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + self.int(1...40))], at: at)
                }
            }
        }
        return FuzzCase(
            label: "random-bytes#\(index)", bytes: bytes, heads: [bytes.starts(with: "HEAD".utf8)], halfClose: true,
            mayReachUpstream: self.mayReachUpstream(String(decoding: bytes, as: UTF8.self))
        )
    }
}
