import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import HTTPTypes
import HummingbirdCore
import IDTokens
import NIOCore
import RateLimiting
import Testing
import TestSupport

/// Per-user token buckets through the real gateway: exact counts under concurrency, standard 429 answers, IETF
/// headers, shadow mode, the per-address failed-auth guard, and Redis shared by two gateways.
@Suite("Rate limits end to end")
struct RateLimitEndToEndTests {
    /// A route limited like the story-generation function (10 per 3600 s by default).
    static let limitedRoute = Route(
        name: "limited-test", path: .exact("/test/limited"), methods: [.post], auth: .required,
        rateLimit: RouteRateLimit(name: "story-generation")
    ) { _, context in
        Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "{\"uid\":\"\(context.identity?.uid ?? "")\"}")))
    }

    static func dev(_ configuration: inout GatewayConfiguration) {
        configuration.mode = .dev
        configuration.firebaseProjectID = nil
    }

    /// Sends `count` requests at once for `uid`; the statuses.
    static func burst(_ gateway: GatewayHarness, uid: String, count: Int) async throws -> [CurlResponse] {
        try await withThrowingTaskGroup(of: CurlResponse.self) { group in
            for _ in 0..<count {
                group.addTask { try await gateway.request("POST", "/test/limited", headers: [("X-User-Id", uid)], body: []) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test("1,000 concurrent requests for one user: exactly capacity succeed, the rest are standard 429s")
    func exactUnderConcurrency() async throws {
        try await GatewayHarness.run(configure: Self.dev, extraRoutes: [Self.limitedRoute]) { gateway in
            let responses = try await Self.burst(gateway, uid: "busy-kid", count: 1000)
            let histogram = Dictionary(grouping: responses, by: \.status).mapValues(\.count)
            let odd = responses.first { $0.status != 200 && $0.errorCode != "RATE_LIMITED" }.map { "\($0.status) \($0.headers) \($0.text.prefix(200))" }
            #expect(responses.filter { $0.status == 200 }.count == 10, "\(histogram) \(odd ?? "")")
            let refused = responses.filter { $0.status == 429 }
            #expect(refused.count == 990, "\(histogram) \(odd ?? "")")
            let sample = try #require(refused.first)
            #expect(sample.errorCode == "RATE_LIMITED")
            let retryAfter = try #require((sample.json["error"] as? [String: Any])?["retryAfter"] as? Int)
            #expect((1...360).contains(retryAfter))
            #expect(sample.header("retry-after") == String(retryAfter))
            for response in responses {
                #expect(response.header("ratelimit-policy") == "\"story-generation\";q=10;w=3600")
                #expect(response.header("ratelimit")?.hasPrefix("\"story-generation\";r=") == true)
            }
            #expect(refused.allSatisfy { $0.header("ratelimit")?.hasPrefix("\"story-generation\";r=0;t=") == true })
            // another user has a bucket of their own
            let other = try await gateway.request("POST", "/test/limited", headers: [("X-User-Id", "calm-kid")], body: [])
            #expect(other.status == 200)
            #expect(other.header("ratelimit") == "\"story-generation\";r=9;t=360")
        }
    }

    @Test("a function's 400 is refused before its limit: no token spent, no limit fields")
    func functionErrorSpendsNoToken() async throws {
        try await GatewayHarness.run(configure: Self.dev) { gateway in
            let invalid = try await gateway.request(
                "POST", "/functions/v1/extract-scenes", headers: [("X-User-Id", "kid-400"), ("Content-Type", "application/json")],
                body: Array("{}".utf8)
            )
            #expect(invalid.status == 400)
            #expect(invalid.errorCode == "INVALID_ARGUMENT")
            #expect(invalid.header("ratelimit") == nil)
            let valid = try await gateway.request(
                "POST", "/functions/v1/extract-scenes", headers: [("X-User-Id", "kid-400"), ("Content-Type", "application/json")],
                body: Array(#"{"story_content": "Mila climbed. The kite flew.", "target_scene_count": 1}"#.utf8)
            )
            #expect(valid.header("ratelimit")?.hasPrefix("\"extract-scenes\";r=29;") == true, "\(valid.header("ratelimit") ?? "none")")
            // Refused before the limit (no caller): nothing counted, no limit fields.
            let anonymous = try await gateway.request("POST", "/functions/v1/extract-scenes", body: Array("{}".utf8))
            #expect(anonymous.status == 401)
            #expect(anonymous.header("ratelimit") == nil)
        }
    }

    @Test("an error after the limit counted the request carries the limit's fields: an unreachable upstream's 502")
    func upstreamErrorCarriesLimitFields() async throws {
        let port = try refusingLoopbackPort()
        try await GatewayHarness.run(configure: { configuration in
            Self.dev(&configuration)
            configuration.routes.append(
                RouteConfiguration(
                    path: .prefix("/down/"), target: .upstream(UpstreamURL("http://127.0.0.1:\(port)")!), auth: .required,
                    rateLimit: RouteRateLimit(name: "story-generation")
                )
            )
        }) { gateway in
            let response = try await gateway.get("/down/anything", headers: [("X-User-Id", "kid-502")])
            #expect(response.status == 502)
            #expect(response.errorCode == "UPSTREAM_ERROR")
            #expect(response.header("ratelimit-policy") == "\"story-generation\";q=10;w=3600")
            #expect(response.header("ratelimit") == "\"story-generation\";r=9;t=360")
        }
    }

    @Test("shadow mode counts but never rejects")
    func shadow() async throws {
        try await GatewayHarness.run(
            configure: {
                Self.dev(&$0)
                $0.rateLimits = $0.rateLimits.map { var limit = $0; limit.shadow = true; return limit }
            },
            extraRoutes: [Self.limitedRoute]
        ) { gateway in
            let responses = try await Self.burst(gateway, uid: "shadowed", count: 30)
            #expect(responses.allSatisfy { $0.status == 200 })
            #expect(responses.contains { $0.header("ratelimit")?.contains(";r=0;") == true })
        }
    }

    @Test("a limit from the environment")
    func configured() async throws {
        let configuration = try GatewayConfiguration(environment: ["ENV": "dev", "RATE_LIMIT_STORY_GENERATION": "3/60"])
        try await GatewayHarness.run(configure: { $0.rateLimits = configuration.rateLimits; Self.dev(&$0) }, extraRoutes: [Self.limitedRoute]) { gateway in
            let responses = try await Self.burst(gateway, uid: "env-kid", count: 10)
            #expect(responses.filter { $0.status == 200 }.count == 3)
            #expect(responses.first?.header("ratelimit-policy") == "\"story-generation\";q=3;w=60")
        }
    }

    @Test("failed authentication per address: bad tokens exhaust it, then verification is refused before RSA; cached tokens still pass")
    func authFailureGuard() async throws {
        try await GatewayHarness.run(configure: { $0.authFailureLimit = RateLimit(name: "auth-failures", capacity: 5, period: 600) }) { gateway in
            let minter = TokenMinter(key: TestKeys.primary, keyID: TestKeys.primaryKeyID)
            let known = minter.mint(uid: "known", projectID: TestKeys.projectID, now: WallClock.now())
            #expect(try await gateway.me(token: known).status == 200)  // now cached

            let forged = TokenMinter(key: TestKeys.other, keyID: TestKeys.primaryKeyID)
            for index in 0..<5 {
                let response = try await gateway.me(token: forged.mint(uid: "x\(index)", projectID: TestKeys.projectID, now: WallClock.now()))
                #expect(response.status == 401)
            }
            let refused = try await gateway.me(token: forged.mint(uid: "x5", projectID: TestKeys.projectID, now: WallClock.now()))
            #expect(refused.status == 429)
            #expect(refused.errorCode == "RATE_LIMITED")
            #expect(refused.header("retry-after") != nil)
            // an uncached valid token from this address waits too (no RSA for it)...
            let fresh = minter.mint(uid: "fresh", projectID: TestKeys.projectID, now: WallClock.now())
            #expect(try await gateway.me(token: fresh).status == 429)
            // ...but a token verified before is answered from the cache
            #expect(try await gateway.me(token: known).status == 200)
            // requests with no credentials count as failures and get the same answer
            #expect(try await gateway.get("/v1/me").status == 429)
        }
    }

    @Test("a bearer token that is not token68 counts once against its address, and waits like any other once it has none left")
    func authFailureGuardNotToken68() async throws {
        try await GatewayHarness.run(configure: { $0.authFailureLimit = RateLimit(name: "auth-failures", capacity: 2, period: 600) }) { gateway in
            let forged = TokenMinter(key: TestKeys.other, keyID: TestKeys.primaryKeyID)
            let notToken68 = TokenMinter(key: TestKeys.primary, keyID: TestKeys.primaryKeyID)
                .mint(uid: "bob", projectID: TestKeys.projectID, now: WallClock.now()) + "!"
            let first = try await gateway.me(token: notToken68)
            #expect(first.status == 401)
            #expect(first.errorMessage?.contains("cannot have") == true)
            // One failure so far, not two: a forged token is still verified.
            #expect(try await gateway.me(token: forged.mint(uid: "x", projectID: TestKeys.projectID, now: WallClock.now())).status == 401)
            // None left: both wait.
            #expect(try await gateway.me(token: notToken68).status == 429)
            #expect(try await gateway.me(token: forged.mint(uid: "y", projectID: TestKeys.projectID, now: WallClock.now())).status == 429)
        }
    }

    @Test("X-Forwarded-For is believed only from trusted proxies")
    func trustedProxies() async throws {
        try await GatewayHarness.run(
            configure: {
                $0.authFailureLimit = RateLimit(name: "auth-failures", capacity: 2, period: 600)
                $0.trustedProxies = [IPAddressRange("127.0.0.0/8")!]
            }
        ) { gateway in
            // behind the trusted proxy (127.0.0.1), each forwarded client has its own bucket
            for client in 1...5 {
                let response = try await gateway.get("/v1/me", headers: [("X-Forwarded-For", "203.0.113.\(client)")])
                #expect(response.status == 401)
            }
            // one forwarded client exhausts only its own bucket
            for _ in 0..<2 { _ = try await gateway.get("/v1/me", headers: [("X-Forwarded-For", "198.51.100.7")]) }
            #expect(try await gateway.get("/v1/me", headers: [("X-Forwarded-For", "198.51.100.7")]).status == 429)
            // a spoofed chain: the rightmost untrusted hop counts, not the leftmost claim
            #expect(try await gateway.get("/v1/me", headers: [("X-Forwarded-For", "10.9.9.9, 198.51.100.7")]).status == 429)
        }
        try await GatewayHarness.run(configure: { $0.authFailureLimit = RateLimit(name: "auth-failures", capacity: 2, period: 600) }) { gateway in
            // without trusted proxies the header is ignored: all these come from 127.0.0.1
            for client in 1...2 { _ = try await gateway.get("/v1/me", headers: [("X-Forwarded-For", "203.0.113.\(client)")]) }
            #expect(try await gateway.get("/v1/me", headers: [("X-Forwarded-For", "203.0.113.99")]).status == 429)
        }
    }

    @Test("two gateways sharing one Redis enforce one limit; Redis down fails open to local buckets, then recovers")
    func sharedRedis() async throws {
        try await withRedisServer { redis in
            let configure: @Sendable (inout GatewayConfiguration) -> Void = {
                Self.dev(&$0)
                $0.redisURL = redis.url
                // Exact counts need every check to reach Redis: a check that times out on a busy test machine
                // fails open to a local bucket by design (and may still have run in Redis).
                $0.redisTimeoutMilliseconds = 2000
            }
            try await GatewayHarness.run(configure: configure, extraRoutes: [Self.limitedRoute]) { first in
                try await GatewayHarness.run(configure: configure, extraRoutes: [Self.limitedRoute]) { second in
                    let responses = try await withThrowingTaskGroup(of: CurlResponse.self) { group in
                        for index in 0..<200 {
                            let gateway = index % 2 == 0 ? first : second
                            group.addTask { try await gateway.request("POST", "/test/limited", headers: [("X-User-Id", "shared-kid")], body: []) }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    #expect(responses.filter { $0.status == 200 }.count == 10)
                    #expect(responses.filter { $0.status == 429 }.count == 190)

                    // Redis dies: fail open to each gateway's local bucket (still limited, never a 5xx)
                    redis.kill()
                    let during = try await Self.burst(first, uid: "outage-kid", count: 20)
                    #expect(during.filter { $0.status == 200 }.count == 10)
                    #expect(during.allSatisfy { $0.status == 200 || $0.status == 429 })

                    // Redis returns: checks go to Redis again (a fresh user's bucket appears in Redis)
                    try await redis.restart()
                    var recovered = false
                    for _ in 0..<100 where !recovered {
                        _ = try await first.request("POST", "/test/limited", headers: [("X-User-Id", "after-restart")], body: [])
                        // The key carries the uid hash of the logs, never the uid.
                        let key = "storygate:rl:story-generation:{\(UserHash.logIdentifier("after-restart"))}"
                        recovered = (try? redis.cli("EXISTS", key))?.contains("1") == true
                        if !recovered { try await Task.sleep(for: .milliseconds(50)) }
                    }
                    #expect(recovered)
                    #expect(try !redis.cli("KEYS", "*").contains("after-restart"))
                }
            }
        }
    }

    @Test("Redis down with the fail-closed policy: 503 UNAVAILABLE, never a 200 past the limit")
    func failClosed() async throws {
        try await withRedisServer { redis in
            try await GatewayHarness.run(
                configure: {
                    Self.dev(&$0)
                    $0.redisURL = redis.url
                    $0.redisTimeoutMilliseconds = 2000  // a busy test machine must not turn the first check into a timeout
                    $0.rateLimitFailurePolicy = .failClosed
                },
                extraRoutes: [Self.limitedRoute]
            ) { gateway in
                #expect(try await gateway.request("POST", "/test/limited", headers: [("X-User-Id", "k")], body: []).status == 200)
                redis.kill()
                let response = try await gateway.request("POST", "/test/limited", headers: [("X-User-Id", "k")], body: [])
                #expect(response.status == 503)
                #expect(response.errorCode == "UNAVAILABLE")
            }
        }
    }

    @Test("a route naming an unknown limit, or a limit without auth, refuses to start")
    func badRoutes() async throws {
        let unknown = Route(name: "x", path: .exact("/x"), methods: [.get], auth: .required, rateLimit: RouteRateLimit(name: "nope")) { _, _ in
            Response(status: .ok)
        }
        let anonymous = Route(name: "y", path: .exact("/y"), methods: [.get], auth: .none, rateLimit: RouteRateLimit(name: "story-generation")) { _, _ in
            Response(status: .ok)
        }
        var configuration = GatewayConfiguration()
        configuration.mode = .dev
        for route in [unknown, anonymous] {
            #expect(throws: ConfigurationError.self) {
                _ = try GatewayApplication(configuration: configuration, logger: GatewayHarness.logger, extraRoutes: [route])
            }
        }
    }
}
