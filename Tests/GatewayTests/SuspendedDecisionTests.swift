import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import IDTokens
import NIOCore
import RateLimiting
import Synchronization
import Testing
import TestSupport

/// Rules that wait on I/O — a rate limit kept in Redis, a certificate refetch for an unknown `kid` — on proxied
/// routes: the request waits for them on its own connection and goes on there, answered in request order when a
/// client pipelines. And small bodies that come whole with their head, forwarded byte for byte.
@Suite("Suspended decisions")
struct SuspendedDecisionTests {
    /// `/limited/` → the upstream, auth required, 3 requests per hour per user.
    static func limited(_ configuration: inout GatewayConfiguration, redis: RedisServer?) {
        configuration.rateLimits.append(RateLimit(name: "tight", capacity: 3, period: 3600))
        let base = configuration.routes.compactMap { route -> UpstreamURL? in
            if case .upstream(let url) = route.target { return url }
            return nil
        }[0]
        configuration.routes.append(
            RouteConfiguration(path: .prefix("/limited/"), target: .upstream(base), auth: .required, rateLimit: RouteRateLimit(name: "tight"))
        )
        if let redis {
            configuration.redisURL = redis.url
            // Exact counts need every check to reach Redis, even on a busy test machine.
            configuration.redisTimeoutMilliseconds = 10000
        }
    }

    @Test("a limit kept in Redis: exact, shared with another gateway, the uid forwarded")
    func redisLimit() async throws {
        try await withRedisServer { redis in
            try await ProxyFixture.run(configure: { Self.limited(&$0, redis: redis) }) { gateway, _ in
                let token = ProxyFixture.token(uid: "redis-user")
                var statuses: [Int] = []
                for _ in 0..<2 {
                    let response = try await gateway.get("/limited/echo", headers: [("Authorization", "Bearer " + token)])
                    statuses.append(response.status)
                    #expect(UpstreamEcho(response).values("X-User-Id") == ["redis-user"])
                    #expect(response.header("ratelimit-policy")?.hasPrefix("\"tight\"") == true)
                }
                // A second gateway on the same Redis sees the same bucket: one request left, then 429.
                let later = Mutex<[Int]>([])
                try await ProxyFixture.run(configure: { Self.limited(&$0, redis: redis) }) { other, _ in
                    let third = try await other.get("/limited/echo", headers: [("Authorization", "Bearer " + token)]).status
                    let refused = try await gateway.get("/limited/echo", headers: [("Authorization", "Bearer " + token)])
                    later.withLock { $0 = [third, refused.status] }
                    #expect(refused.errorCode == "RATE_LIMITED")
                    #expect(refused.header("retry-after") != nil)
                }
                #expect(statuses + later.withLock { $0 } == [200, 200, 200, 429])
            }
        }
    }

    @Test("pipelined requests that wait on Redis are answered in order on their connection")
    func pipelinedRedisLimit() async throws {
        try await withRedisServer { redis in
            try await ProxyFixture.run(configure: { Self.limited(&$0, redis: redis) }) { gateway, _ in
                let token = ProxyFixture.token(uid: "pipelined-user")
                let one = { (n: Int) in "GET /limited/echo/\(n) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n\r\n" }
                let bytes = Array((one(1) + "GET /open/echo/2 HTTP/1.1\r\nHost: t\r\n\r\n" + one(3) + one(4) + one(5)).utf8)
                let outcome = await RawHTTPExchange(heads: [false, false, false, false, false], halfClose: false, stallSeconds: 5)
                    .run(port: gateway.port, bytes: bytes)
                #expect(outcome.responses.map(\.status) == [200, 200, 200, 200, 429], "\(String(decoding: outcome.raw, as: UTF8.self))")
                let paths = outcome.responses.prefix(4).map { (try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any])?["path"] as? String }
                #expect(paths == ["/base/echo/1", "/base/echo/2", "/base/echo/3", "/base/echo/4"])
            }
        }
    }

    @Test("a token signed with a key rotated in since start: one refetch, then forwarded as that user")
    func refetchOnProxiedRoute() async throws {
        let endpoint = CertificateEndpoint()
        try await withUpstreamTestServer { upstream in
            try await GatewayHarness.run(certificates: endpoint, configure: { configuration in
                configuration.routes += ProxyFixture.routes(upstream: upstream.baseURL)
            }) { gateway in
                #expect(endpoint.fetches == 1)
                endpoint.update { $0.keys["rotated-kid"] = TestKeys.other.selfSignedCertificatePEM(commonName: "rotated") }
                let token = TokenMinter(key: TestKeys.other, keyID: "rotated-kid").mint(uid: "carol", projectID: TestKeys.projectID, now: WallClock.now())
                let response = try await gateway.get("/api/echo", headers: [("Authorization", "Bearer " + token)])
                #expect(response.status == 200)
                #expect(UpstreamEcho(response).values("X-User-Id") == ["carol"])
                #expect(endpoint.fetches == 2)
                // A kid nobody has: one more refetch (or none, within the cooldown), then 401, nothing forwarded.
                let before = upstream.requestCount
                let unknown = TokenMinter(key: TestKeys.other, keyID: "nobody-kid").mint(uid: "mallory", projectID: TestKeys.projectID, now: WallClock.now())
                let refused = try await gateway.get("/api/echo", headers: [("Authorization", "Bearer " + unknown)])
                #expect(refused.status == 401)
                #expect(upstream.requestCount == before)
            }
        }
    }

    @Test("small bodies that come whole with their head: forwarded byte for byte, pipelined with other requests")
    func inlineBodies() async throws {
        try await ProxyFixture.run { gateway, _ in
            let body = Array(BodyPattern.buffer(offset: 0, count: 1000).readableBytesView)
            var bytes = Array("POST /open/echo/1 HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n".utf8) + body
            bytes += Array("GET /open/echo/2 HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
            bytes += Array("PUT /open/echo/3 HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n".utf8) + body
            bytes += Array("POST /small/echo/4 HTTP/1.1\r\nHost: t\r\nContent-Length: 2000\r\n\r\n".utf8) + body + body
            let outcome = await RawHTTPExchange(heads: [false, false, false, false], halfClose: false, stallSeconds: 5).run(port: gateway.port, bytes: bytes)
            #expect(outcome.responses.map(\.status) == [200, 200, 200, 413], "\(String(decoding: outcome.raw, as: UTF8.self))")
            let echoes = outcome.responses.prefix(3).map { try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any] }
            #expect(echoes.map { $0?["bodyBytes"] as? Int } == [1000, 0, 1000])
            #expect(echoes.map { $0?["bodyIntact"] as? Bool } == [true, true, true])
            #expect(echoes.map { $0?["method"] as? String } == ["POST", "GET", "PUT"])
        }
    }
}
