import Foundation

/// Valid-looking requests to every route, and the JSON bodies of the functions.
extension EdgeFuzzCorpus {
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
