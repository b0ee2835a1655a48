import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import MockOpenAI
import Testing
import TestSupport

/// Idempotency keys and jobs with the settings that change them: two gateways sharing a real redis-server, a
/// route that requires a key, a full queue, and writes to an upstream route kept under a key.
@Suite("Idempotency and jobs: shared, required, full, upstream")
struct GenerationsSharingTests {
    static let body = OpenAIPathEndToEndTests.scenesBody

    @Test("two gateways on one Redis: a key's concurrent calls join one run; a job made on one is read and waited for on the other")
    func sharedThroughRedis() async throws {
        var mockConfiguration = MockOpenAIConfiguration()
        mockConfiguration.latency = .milliseconds(300)
        try await withRedisServer { redis in
            try await withMockOpenAI(mockConfiguration) { mock, baseURL in
                let configure: @Sendable (inout GatewayConfiguration) -> Void = {
                    FunctionsEndToEndTests.dev(&$0)
                    $0.openAIAPIKey = Secret("sk-test-local")
                    $0.openAIBaseURL = baseURL
                    $0.redisURL = redis.url
                    $0.redisTimeoutMilliseconds = 2000
                }
                try await GatewayHarness.run(configure: configure) { first in
                    try await GatewayHarness.run(configure: { configure(&$0); $0.jobs.workers = 0 }) { second in
                        let responses = try await withThrowingTaskGroup(of: CurlResponse.self) { group in
                            for index in 0..<10 {
                                let gateway = index % 2 == 0 ? first : second
                                group.addTask { try await IdempotencyEndToEndTests.call(gateway, "extract-scenes", Self.body, key: "\"shared\"") }
                            }
                            return try await group.reduce(into: []) { $0.append($1) }
                        }
                        #expect(responses.allSatisfy { $0.status == 200 }, "\(responses.map(\.status))")
                        #expect(Set(responses.map(\.body)).count == 1)
                        #expect(mock.requests.filter { $0.endpoint == .chatCompletions }.count == 1)
                        #expect(try redis.cli("KEYS", "storygate:idem:*").contains("extract-scenes"))

                        // Made on the second (which runs no jobs), run by the first, waited for on the second.
                        let created = try await JobsEndToEndTests.create(second)
                        #expect(created.status == 202)
                        let id = try #require(created.json["job_id"] as? String)
                        let done = try await second.get("/v1/jobs/\(id)", headers: [("X-User-Id", "kid-1"), ("Prefer", "wait=30")])
                        #expect(done.json["status"] as? String == "succeeded", "\(done.text.prefix(300))")
                        #expect(try await first.get("/v1/jobs/\(id)", headers: [("X-User-Id", "kid-2")]).status == 404)
                    }
                }
            }
        }
    }

    @Test("idempotency: required refuses a call without a key; a full queue is 503 QUEUE_FULL with Retry-After")
    func requiredAndFull() async throws {
        try await GatewayHarness.run(configure: {
            FunctionsEndToEndTests.dev(&$0)
            $0.jobs.workers = 0
            $0.jobs.queueMax = 1
            for index in $0.routes.indices where $0.routes[index].name == "story-generation" { $0.routes[index].idempotency = .required }
        }) { gateway in
            let story = IdempotencyEndToEndTests.bodies[0].body
            let missing = try await IdempotencyEndToEndTests.call(gateway, "story-generation", story, key: nil)
            #expect(missing.status == 400)
            #expect(missing.errorCode == "IDEMPOTENCY_KEY_REQUIRED")
            #expect(try await IdempotencyEndToEndTests.call(gateway, "story-generation", story, key: "\"ok\"").status == 200)

            #expect(try await JobsEndToEndTests.create(gateway).status == 202)
            let full = try await JobsEndToEndTests.create(gateway)
            #expect(full.status == 503)
            #expect(full.errorCode == "QUEUE_FULL")
            #expect(full.header("Retry-After") == "5")
        }
    }

    @Test("a POST with a key to an upstream route: one upstream exchange, the 2xx kept and replayed; a 5xx is not kept; PUT streams")
    func upstreamWrites() async throws {
        try await withUpstreamTestServer { upstream in
            try await GatewayHarness.run(configure: { configuration in
                let base = UpstreamURL(upstream.baseURL + "/base")!
                configuration.routes.append(
                    RouteConfiguration(path: .prefix("/orders/"), target: .upstream(base), auth: .required, idempotency: .optional)
                )
            }) { gateway in
                let token = ProxyFixture.token(uid: "buyer")
                func send(_ method: String, _ path: String, key: String?, uid token: String = token) async throws -> CurlResponse {
                    var headers = [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")]
                    if let key { headers.append(("Idempotency-Key", key)) }
                    return try await gateway.request(method, path, headers: headers, body: Array("{\"item\":42}".utf8))
                }
                let before = upstream.requestCount
                let first = try await send("POST", "/orders/echo", key: "\"order-1\"")
                #expect(first.status == 200, "\(first.text.prefix(300))")
                #expect(first.json["method"] as? String == "POST")
                let second = try await send("POST", "/orders/echo", key: "\"order-1\"")
                #expect(second.status == 200)
                #expect(second.header("Idempotent-Replayed") == "true")
                #expect(second.body == first.body)
                #expect(second.header("Content-Type") == "application/json")
                #expect(upstream.requestCount == before + 1)
                #expect(try await send("POST", "/orders/echo", key: "\"order-1\"", uid: ProxyFixture.token(uid: "other")).header("Idempotent-Replayed") == nil)
                #expect(upstream.requestCount == before + 2)
                #expect(try await send("PATCH", "/orders/echo", key: "\"order-1\"").status == 422)

                // A 5xx is not kept: the retry reaches the upstream again.
                let failed = try await send("POST", "/orders/status/503", key: "\"order-2\"")
                #expect(failed.status == 503)
                #expect(try await send("POST", "/orders/status/503", key: "\"order-2\"").header("Idempotent-Replayed") == nil)
                #expect(upstream.requestCount == before + 4)

                // PUT is not kept; a malformed key on a POST is refused before the upstream sees anything.
                _ = try await send("PUT", "/orders/echo", key: "\"order-3\"")
                _ = try await send("PUT", "/orders/echo", key: "\"order-3\"")
                #expect(upstream.requestCount == before + 6)
                let bad = try await send("POST", "/orders/echo", key: "order-4")
                #expect(bad.status == 400)
                #expect(bad.errorCode == "INVALID_IDEMPOTENCY_KEY")
                #expect(upstream.requestCount == before + 6)
            }
        }
    }
}
