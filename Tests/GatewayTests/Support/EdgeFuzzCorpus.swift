import Foundation

/// SplitMix64: the same sequence for the same seed on every run, so a failing case reproduces from its seed.
struct FuzzRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// One generated exchange: the bytes sent on a fresh connection and what the answers may be.
struct FuzzCase: Sendable {
    /// `category#index`, for failure messages.
    let label: String
    let bytes: [UInt8]
    /// One entry per request that may be answered: whether it is a HEAD (its answer has no body).
    let heads: [Bool]
    /// Shut the write side after sending (the request may be cut short on purpose).
    let halfClose: Bool
    /// An upstream or the AI provider may be involved: 502, 503 and 504 are allowed.
    let mayReachUpstream: Bool
}

/// Generates the edge fuzz's requests from a seed: mutated request lines, mutated header sections, random bytes,
/// and valid-looking requests to every route (the five functions with JSON bodies from a small grammar, media with
/// random keys and ranges, `/v1/me` with random credentials, proxied routes with random methods and bodies).
struct EdgeFuzzCorpus {
    /// What the gateway under test serves.
    struct Target {
        /// Dev mode: `X-User-Id` is a credential and the AI functions answer offline (no provider faults).
        let dev: Bool
        /// ProxyFixture's upstream routes are configured.
        let upstreamRoutes: Bool
        /// A stored media object: its key, ETag and size.
        let mediaKey: String
        let mediaETag: String
        let mediaLength: Int
        /// `server.max_header_bytes` and `server.max_header_count`.
        let maxHeaderBytes: Int
        let maxHeaderCount: Int
        /// A valid bearer token for a uid (prod).
        let token: @Sendable (String) -> String
    }

    let target: Target
    var random: FuzzRandom

    init(target: Target, seed: UInt64) {
        self.target = target
        self.random = FuzzRandom(seed: seed)
    }

    static let functions = ["story-generation", "extract-scenes", "audio-synthesis", "avatar-generation", "scene-illustration"]
    static let upstreamPrefixes = ["/api/", "/with-auth/", "/open/", "/small/", "/slow/", "/hook"]

    /// Whether a request for `target` may be answered by an upstream or the AI provider (so 502/503/504 may be fair).
    func mayReachUpstream(_ text: String) -> Bool {
        if !self.target.dev, text.contains("/functions/") { return true }
        return self.target.upstreamRoutes && Self.upstreamPrefixes.contains { text.contains($0) }
    }

    // MARK: Random helpers

    mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &self.random) < probability }
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self.random) }
    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &self.random)] }

    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self.random) }
    }

    mutating func word(_ alphabet: String, _ length: ClosedRange<Int>) -> String {
        let characters = Array(alphabet)
        return String((0..<self.int(length)).map { _ in self.pick(characters) })
    }

    static func request(_ method: String, _ target: String, version: String = "HTTP/1.1", fields: [(String, String)], body: [UInt8] = []) -> [UInt8] {
        var text = "\(method) \(target) \(version)\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Array(text.utf8) + body
    }

    /// `body` as chunks of random sizes, each `<hex>\r\n<bytes>\r\n`, then `0\r\n\r\n`.
    mutating func chunked(_ body: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < body.count {
            let size = min(self.int(1...max(1, body.count)), body.count - index)
            out += Array("\(String(size, radix: 16))\r\n".utf8) + body[index..<(index + size)] + [13, 10]
            index += size
        }
        return out + Array("0\r\n\r\n".utf8)
    }

    // MARK: Routes

    /// A path of a configured route (with a real media key sometimes).
    mutating func routePath() -> String {
        var paths = [
            "/healthz", "/readyz", "/metrics", "/openapi.yaml", "/v1/me", "/media/\(self.target.mediaKey)", "/media/nothing",
            "/nope", "/",
        ]
        paths += Self.functions.map { "/functions/v1/\($0)" }
        if self.target.upstreamRoutes {
            paths += ["/api/echo", "/with-auth/echo", "/open/echo", "/open/status/418", "/open/mirror", "/small/echo", "/hook", "/open/unknown"]
        }
        return self.pick(paths)
    }

    /// Credentials for a route: a valid one most of the time.
    mutating func credentials() -> [(String, String)] {
        if self.target.dev {
            return self.chance(0.8) ? [("X-User-Id", "fuzz-\(self.int(1...40))")] : []
        }
        return self.chance(0.7) ? [("Authorization", "Bearer " + self.target.token("fuzz-\(self.int(1...40))"))] : []
    }

    /// A plausible request for `path`: its usual method, credentials, and a small JSON body for a function.
    mutating func plausible(_ path: String) -> (method: String, fields: [(String, String)], body: [UInt8]) {
        var fields: [(String, String)] = [("Host", "gateway.test")] + self.credentials()
        if path.hasPrefix("/functions/") {
            let body = Array(self.functionBody(path.split(separator: "/").last.map(String.init) ?? "").utf8)
            fields += [("Content-Type", "application/json"), ("Content-Length", String(body.count))]
            return ("POST", fields, body)
        }
        if path.hasPrefix("/open/mirror") || path.hasPrefix("/small/") {
            let body = Array(self.word("abcdef0123456789", 0...2000).utf8)
            fields.append(("Content-Length", String(body.count)))
            return ("POST", fields, body)
        }
        return (self.chance(0.2) ? "HEAD" : "GET", fields, [])
    }

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

    // MARK: 4. Valid-looking requests to every route

    mutating func routeCase(_ index: Int) -> FuzzCase {
        let choice = self.int(0...(self.target.upstreamRoutes ? 5 : 3))
        var method: String
        var path: String
        var fields: [(String, String)] = [("Host", "gateway.test")]
        var body: [UInt8] = []
        switch choice {
        case 0:  // a function
            let function = self.pick(Self.functions)
            path = "/functions/v1/\(function)"
            method = self.chance(0.9) ? "POST" : self.pick(["GET", "PUT", "HEAD", "DELETE"])
            fields += self.credentials()
            if self.chance(0.8) { fields.append(("Content-Type", self.pick(["application/json", "application/json; charset=utf-8", "text/plain", ""]))) }
            body = Array(self.functionBody(function).utf8)
        case 1:  // media
            let key = self.chance(0.6) ? self.target.mediaKey : self.pick([self.word("0123456789abcdef", 32...32), self.word("0123456789abcdefXYZ./%-", 0...70), "..", "%2e%2e/x"])
            path = "/media/" + key
            method = self.chance(0.9) ? self.pick(["GET", "HEAD"]) : self.pick(["POST", "DELETE", "OPTIONS"])
            if self.chance(0.7) { fields.append(("Range", self.rangeValue())) }
            if self.chance(0.15) { fields.append(("If-None-Match", self.pick([self.target.mediaETag, "*", "\"x\"", "W/\(self.target.mediaETag)"]))) }
            if self.chance(0.15) { fields.append(("If-Range", self.pick([self.target.mediaETag, "\"other\"", "Tue, 01 Jan 2030 00:00:00 GMT"]))) }
        case 2:  // /v1/me
            path = "/v1/me"
            method = self.chance(0.9) ? self.pick(["GET", "HEAD"]) : self.pick(["POST", "PUT"])
            fields += self.authorizationFields()
        case 3:  // the system endpoints
            path = self.pick(["/healthz", "/readyz", "/metrics", "/openapi.yaml", "/", "/nope", "/v1", "/functions/v1/"])
            method = self.pick(["GET", "HEAD", "GET", "POST", "DELETE", "OPTIONS", "TRACE"])
        default:  // a proxied route
            let prefix = self.pick(Self.upstreamPrefixes)
            let command = self.pick([
                "echo", "echo/deeper", "status/\(self.int(200...599))", "early/\(self.pick([200, 401, 413, 503]))", "mirror", "stream/\(self.int(0...200_000))",
                "stream/\(self.int(0...50_000))?chunked", "hop", "reset", "nothing", "",
            ])
            path = prefix == "/hook" ? "/hook" : prefix == "/slow/" && self.chance(0.3) ? "/slow/hang" : prefix + command
            if self.chance(0.3) { path += "?" + self.word("abc=&%20+", 1...20) }
            method = self.pick(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND", "GET", "POST"])
            if prefix == "/api/" || prefix == "/with-auth/" { fields += self.credentials() }
            if self.chance(0.3) { fields += [("Connection", "X-Hop"), ("X-Hop", "1"), ("TE", "trailers"), ("Proxy-Authorization", "Basic eDp5")] }
            if self.chance(0.2) { fields += [("X-User-Id", "admin"), ("X-StoryGate-Identity", "v1.1.YQ.Yg.AAAA")] }
            if method != "GET", method != "HEAD", self.chance(0.7) {
                body = (0..<self.int(0...(self.chance(0.2) ? 4000 : 900))).map { UInt8(truncatingIfNeeded: $0) }
            }
        }
        if !body.isEmpty || (method == "POST" && self.chance(0.5)) {
            if self.chance(0.8) {
                fields.append(("Content-Length", String(body.count)))
            } else {
                fields.append(("Transfer-Encoding", "chunked"))
                body = self.chunked(body)
            }
        }
        var bytes = Self.request(method, path, fields: fields, body: body)
        var heads = [method == "HEAD"]
        if self.chance(0.1) {
            // Pipelined behind a plain request.
            bytes += Self.request("GET", "/healthz", fields: [("Host", "gateway.test")])
            heads.append(false)
        }
        return FuzzCase(label: "route/\(choice)#\(index)", bytes: bytes, heads: heads, halfClose: false, mayReachUpstream: self.mayReachUpstream(path))
    }

    mutating func rangeValue() -> String {
        let length = self.target.mediaLength
        let a = self.int(-5...(length + 20))
        let b = self.int(-5...(length + 20))
        return self.pick([
            "bytes=\(a)-\(b)", "bytes=\(a)-", "bytes=-\(b)", "bytes=0-0", "bytes=\(a)-\(b),\(b)-", "bytes=99999999999999999999-", "items=0-1",
            "bytes=", "bytes=-", "bytes=--1", "bytes = 0-1", "BYTES=0-1", "bytes=0-1;x", "bytes=\(length)-", "bytes=-0", self.word("bytes=0123456789-,", 0...30),
        ])
    }

    /// `Authorization` (or dev's `X-User-Id`) values from good to absurd.
    mutating func authorizationFields() -> [(String, String)] {
        let token = self.target.token("me-\(self.int(1...5))")
        var flipped = Array(token.utf8)
        flipped[self.int(0...(flipped.count - 1))] ^= 0x01
        let value = self.pick([
            "Bearer \(token)", "bearer \(token)", "BEARER  \(token)", "Bearer \(String(decoding: flipped, as: UTF8.self))", "Bearer", "Bearer ",
            "Bearer a.b.c", "Bearer \(self.word("ABCabc012-_.+/=", 0...200))", "Basic eDp5", "Bearer \(token) extra", "Bearer " + String(repeating: "A", count: 16 * 1024 + self.int(-10...10)),
            "Bearer \(token.split(separator: ".").prefix(2).joined(separator: "."))", "Bearer \(token).", "\(token)",
        ])
        var fields = [("Authorization", value)]
        if self.chance(0.1) { fields.append(("Authorization", "Bearer \(token)")) }
        if self.chance(0.2) { fields = [] }
        if self.target.dev, self.chance(0.5) {
            fields.append(("X-User-Id", self.pick(["alice", "", "a b", String(repeating: "u", count: 129), "\u{E9}", "a@b:c.d_e-f", "../x"])))
        }
        return fields
    }

    // MARK: Function bodies

    /// A JSON body for `function`: a valid one with a field perturbed, random JSON from a small grammar, or not JSON.
    mutating func functionBody(_ function: String) -> String {
        switch self.int(0...9) {
        case 0...5: return self.template(function)
        case 6...7: return self.json(depth: 0)
        default:
            return self.pick([
                "", "{", "{\"a\":", "[]", "null", "{}{}", "{\"story_content\":\"x\"} trailing", "\u{FEFF}{}", "{'a':1}", "{\"a\":1,}",
                String(repeating: "[", count: 5000), "{\"a\":\"\\ud800\"}", "{\"a\":1e999999}", "\u{0}", self.word("{}[]\":,0123abc", 0...100),
            ])
        }
    }

    mutating func template(_ function: String) -> String {
        var object: [(String, String)]
        switch function {
        case "story-generation":
            object = [
                ("hero", "{\"name\":\"Mila\",\"primary_trait\":\"brave\",\"secondary_trait\":\"curious\",\"appearance\":\"red hair\",\"special_ability\":\"talks to birds\",\"age\":7}"),
                ("event", self.pick(["{\"type\":\"built_in\",\"data\":{\"name\":\"lost kite\"}}", "{\"type\":\"custom\",\"data\":{\"title\":\"Kite\",\"description\":\"Stuck in a tree.\"}}"])),
                ("target_duration", "120"), ("language", "\"en\""),
            ]
        case "extract-scenes":
            object = [("story_content", "\"Once upon a time. The end.\""), ("target_scene_count", "3")]
        case "audio-synthesis":
            object = [("text", "\"Hello there.\""), ("language", "\"en\""), ("voice", "\"coral\""), ("speed", "1.0")]
        case "avatar-generation":
            object = [("hero_id", "\"h1\""), ("prompt", "\"a brave girl\""), ("style", "\"vivid\""), ("quality", "\"hd\""), ("size", "\"1024x1024\"")]
        default:
            object = [("story_id", "\"s1\""), ("scene_number", "1"), ("prompt", "\"under the oak\""), ("style", "\"natural\"")]
        }
        if self.chance(0.7), !object.isEmpty {
            let at = self.int(0...(object.count - 1))
            switch self.int(0...3) {
            case 0: object.remove(at: at)
            case 1: object[at].1 = self.json(depth: 1)
            case 2: object.append((self.pick(["extra", object[at].0, "\u{0}", ""]), self.json(depth: 2)))
            default: object[at].1 = self.pick(["\"\"", "-1", "1e308", "0", "99999999999999999999", "\"\(String(repeating: "w", count: self.int(1...60_000)))\"", "null", "true"])
            }
        }
        return "{" + object.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// JSON from a small grammar: objects keyed by the functions' own field names, strings with escapes and
    /// non-ASCII text, numbers at the edges, booleans, null, arrays.
    mutating func json(depth: Int) -> String {
        let keys = [
            "hero", "name", "primary_trait", "event", "type", "data", "title", "target_duration", "language", "story_content", "target_scene_count",
            "text", "voice", "speed", "hero_id", "prompt", "style", "quality", "size", "story_id", "scene_number", "hero_generation_id", "age",
        ]
        switch depth > 3 ? self.int(2...6) : self.int(0...6) {
        case 0:
            return "{" + (0..<self.int(0...6)).map { _ in "\"\(self.pick(keys))\":\(self.json(depth: depth + 1))" }.joined(separator: ",") + "}"
        case 1:
            return "[" + (0..<self.int(0...5)).map { _ in self.json(depth: depth + 1) }.joined(separator: ",") + "]"
        case 2:
            return self.pick(["\"\"", "\"en\"", "\"vivid\"", "\"\\u0000\"", "\"\\\"\"", "\"caf\u{E9} \u{1F600}\"", "\"\\ud83d\\ude00\"", "\"a\\nb\"", "\"en-US\"", "\"1024x1792\""])
        case 3:
            return self.pick(["0", "-0", "1", "-1", "7", "30", "1800", "1801", "0.25", "4.0", "4.01", "1e308", "-1e308", "1E-400", "123456789012345678901234567890", "20", "21"])
        case 4:
            return self.pick(["true", "false"])
        case 5:
            return "null"
        default:
            return "\"" + self.word("abc xyz.,!?-'", 0...80) + "\""
        }
    }
}
