#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import IDTokens
import NIOCore
import NIOPosix
import TestSupport

/// A prod gateway with upstream routes in front of a streaming ``UpstreamTestServer``:
///
/// | route | upstream | auth | notes |
/// |---|---|---|---|
/// | `/api/` | `<upstream>/base/` | required | `Authorization` removed |
/// | `/with-auth/` | `<upstream>/base/` | required | `Authorization` forwarded |
/// | `/open/` | `<upstream>/base/` | none | |
/// | `/small/` | `<upstream>/base/` | none | `max_body_bytes: 1024` |
/// | `/slow/` | `<upstream>/base/` | none | `timeout_seconds: 0.3` |
/// | `/stalling/` | `<upstream>/base/` | none | `timeout_seconds: 1` (room for a loaded machine before the head) |
/// | `/hook` (exact) | `<upstream>/base/echo` | none | |
enum ProxyFixture {
    static let minter = TokenMinter(key: TestKeys.primary, keyID: TestKeys.primaryKeyID)
    /// 40 bytes: a valid assertion key (`Secret` text, used as its UTF-8 bytes).
    static let secretText = "proxy-test-assertion-secret-0123456789ab"
    static let key = IdentityAssertionKey(Array(secretText.utf8))!
    static let otherKey = IdentityAssertionKey(Array("a-different-secret-of-at-least-32-bytes".utf8))!

    static func token(uid: String = "alice") -> String {
        Self.minter.mint(uid: uid, projectID: TestKeys.projectID, now: WallClock.now(), ttl: 600)
    }

    static func routes(upstream: String) -> [RouteConfiguration] {
        let base = UpstreamURL(upstream + "/base")!
        return [
            RouteConfiguration(path: .prefix("/api/"), target: .upstream(base), auth: .required),
            RouteConfiguration(path: .prefix("/with-auth/"), target: .upstream(base), auth: .required, forwardAuthorization: true),
            RouteConfiguration(path: .prefix("/open/"), target: .upstream(base), auth: .none),
            RouteConfiguration(path: .prefix("/small/"), target: .upstream(base), auth: .none, maxBodyBytes: 1024),
            RouteConfiguration(path: .prefix("/slow/"), target: .upstream(base), auth: .none, timeoutSeconds: 0.3),
            RouteConfiguration(path: .prefix("/stalling/"), target: .upstream(base), auth: .none, timeoutSeconds: 1),
            RouteConfiguration(path: .exact("/hook"), target: .upstream(UpstreamURL(upstream + "/base/echo")!), auth: .none),
        ]
    }

    /// Runs `body` with an upstream and a gateway routing to it (`configure` runs after the routes are added).
    static func run(
        configure: (inout GatewayConfiguration) -> Void = { _ in },
        _ body: @Sendable (GatewayHarness, UpstreamTestServer) async throws -> Void
    ) async throws {
        try await withUpstreamTestServer { upstream in
            try await GatewayHarness.run(configure: { configuration in
                configuration.routes += Self.routes(upstream: upstream.baseURL)
                configure(&configuration)
            }) { gateway in
                try await body(gateway, upstream)
            }
        }
    }

    /// Runs `body` with an async-http-client for streaming requests (libcurl's test client buffers bodies).
    static func withStreamingClient<Result: Sendable>(_ body: (HTTPClient) async throws -> Result) async throws -> Result {
        let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        do {
            let result = try await body(client)
            try await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}

/// What the upstream's `/echo` saw.
struct UpstreamEcho {
    let json: [String: Any]

    init(_ response: CurlResponse) {
        self.json = response.json
    }

    var method: String? { self.json["method"] as? String }
    var path: String? { self.json["path"] as? String }
    var host: String? { self.json["host"] as? String }
    var bodyBytes: Int? { self.json["bodyBytes"] as? Int }
    var bodyIntact: Bool? { self.json["bodyIntact"] as? Bool }
    var headers: [(name: String, value: String)] {
        ((self.json["headers"] as? [[String]]) ?? []).compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
    }

    /// Every value of the field `name` (case-insensitive), in order.
    func values(_ name: String) -> [String] {
        self.headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    func has(_ name: String) -> Bool { !self.values(name).isEmpty }
}

/// `total` bytes of ``BodyPattern`` in `chunk`-sized buffers, produced on demand (never held whole).
struct PatternBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let total: Int
    var chunk = 64 * 1024

    struct AsyncIterator: AsyncIteratorProtocol {
        let total: Int
        let chunk: Int
        var sent = 0

        mutating func next() async -> ByteBuffer? {
            guard self.sent < self.total else { return nil }
            let count = Swift.min(self.chunk, self.total - self.sent)
            defer { self.sent += count }
            return BodyPattern.buffer(offset: self.sent, count: count)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(total: self.total, chunk: self.chunk) }
}
