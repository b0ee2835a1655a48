import Foundation
import TestSupport

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
    var random: SplitMix64

    init(target: Target, seed: UInt64) {
        self.target = target
        self.random = SplitMix64(seed: seed)
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
}
