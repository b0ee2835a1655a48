import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import IDTokens
import MockOpenAI
import Testing
import TestSupport

/// The AI functions over the real path: gateway → OpenAI client → libcurl → a local fake OpenAI, with its faults
/// mapped to the gateway's errors.
@Suite("AI functions over libcurl to a fake OpenAI")
struct OpenAIPathEndToEndTests {
    static let scenesBody = FunctionsEndToEndTests.json([
        "story_content": "Mila found a kite. She climbed the oak. The kite flew again. Everyone cheered.", "target_scene_count": 2,
    ])

    func run(timeoutSeconds: Int? = nil, _ body: @escaping @Sendable (GatewayHarness, MockOpenAIServer) async throws -> Void) async throws {
        try await withMockOpenAI { mock, baseURL in
            try await GatewayHarness.run(configure: {
                FunctionsEndToEndTests.dev(&$0)
                $0.openAIAPIKey = Secret("sk-test-local")
                $0.openAIBaseURL = baseURL
                $0.openAITimeoutSeconds = timeoutSeconds
            }) { gateway in
                try await body(gateway, mock)
            }
        }
    }

    func scenes(_ gateway: GatewayHarness, uid: String = "kid-7") async throws -> CurlResponse {
        try await gateway.request("POST", "/functions/v1/extract-scenes", headers: [("X-User-Id", uid), ("Content-Type", "application/json")], body: Self.scenesBody)
    }

    @Test("a call reaches the fake OpenAI with a hashed end-user id, never the uid or key in our answer")
    func success() async throws {
        try await self.run { (gateway: GatewayHarness, mock: MockOpenAIServer) async throws in
            let response = try await self.scenes(gateway, uid: "raw-uid-42")
            #expect(response.status == 200, "\(response.text.prefix(300))")
            #expect((response.json["scenes"] as? [Any])?.count == 2)
            let chat = try #require(mock.requests.last { $0.endpoint == .chatCompletions })
            #expect(!chat.bodyText.contains("raw-uid-42"))
            #expect(chat.bodyText.contains(UserHash.safetyIdentifier("raw-uid-42")))
            #expect(!response.text.contains("sk-test-local"))
        }
    }

    @Test("429 with Retry-After, then success: retried, and the retry, the failed attempt, the call and its tokens are counted")
    func retriedRateLimit() async throws {
        try await self.run { (gateway: GatewayHarness, mock: MockOpenAIServer) async throws in
            mock.faults.enqueue(.status(429, retryAfter: 1), for: .chatCompletions)
            #expect(try await self.scenes(gateway).status == 200)
            #expect(mock.requests.filter { $0.endpoint == .chatCompletions }.count == 2)
            let metrics = ObservabilityTests.samples(try await gateway.settledMetrics())
            #expect(metrics["storygate_openai_retries_total{endpoint=\"chat/completions\"}"] == 1)
            #expect(metrics["storygate_openai_attempt_errors_total{endpoint=\"chat/completions\",status=\"429\"}"] == 1)
            #expect(metrics["storygate_openai_call_duration_seconds_count{endpoint=\"chat/completions\",outcome=\"ok\"}"] == 1)
            #expect(metrics["storygate_openai_call_duration_seconds_count{endpoint=\"moderations\",outcome=\"ok\"}"] == 1)
            #expect(metrics["storygate_openai_tokens_total{function=\"extract-scenes\",type=\"prompt\"}"] ?? 0 > 0)
            #expect(metrics["storygate_openai_tokens_total{function=\"extract-scenes\",type=\"completion\"}"] ?? 0 > 0)
        }
    }

    @Test("still rate-limited after the retries: 503 UPSTREAM_RATE_LIMITED with retryAfter, kept apart from our 429")
    func rateLimited() async throws {
        try await self.run { (gateway: GatewayHarness, mock: MockOpenAIServer) async throws in
            mock.faults.enqueue(.status(429, retryAfter: 1), .status(429, retryAfter: 1), .status(429, retryAfter: 7), for: .chatCompletions)
            let response = try await self.scenes(gateway)
            #expect(response.status == 503)
            #expect(response.errorCode == "UPSTREAM_RATE_LIMITED")
            #expect(((response.json["error"] as? [String: Any])?["retryAfter"] as? Int ?? 0) >= 1)
            #expect(mock.requests.filter { $0.endpoint == .chatCompletions }.count == 3)
        }
    }

    @Test("a Retry-After too long to be meant (Int.max seconds) is a 503 with a day's retryAfter, not a crash")
    func hugeRetryAfter() async throws {
        try await self.run { (gateway: GatewayHarness, mock: MockOpenAIServer) async throws in
            mock.faults.enqueue(.status(429, retryAfter: Int.max), for: .chatCompletions)
            let response = try await self.scenes(gateway)
            #expect(response.status == 503)
            #expect(response.errorCode == "UPSTREAM_RATE_LIMITED")
            #expect((response.json["error"] as? [String: Any])?["retryAfter"] as? Int == 86_400)
            #expect(response.header("retry-after") == "86400")
        }
    }

    @Test("a 500 is retried; malformed JSON is a 502; a refusal is a 400; resets end as a 502")
    func faults() async throws {
        try await self.run { (gateway: GatewayHarness, mock: MockOpenAIServer) async throws in
            mock.faults.enqueue(.status(500), for: .chatCompletions)
            #expect(try await self.scenes(gateway).status == 200)

            mock.faults.enqueue(.malformedJSON, for: .chatCompletions)
            let malformed = try await self.scenes(gateway)
            #expect(malformed.status == 502)
            #expect(malformed.errorCode == "UPSTREAM_ERROR")

            mock.faults.enqueue(.refusal, for: .chatCompletions)
            let refused = try await self.scenes(gateway)
            #expect(refused.status == 400)
            #expect(refused.errorCode == "CONTENT_POLICY_VIOLATION")

            // libcurl itself reconnects once when a reused connection turns out dead, on top of our 3 attempts:
            // script more resets than both, then clear the rest.
            mock.faults.enqueue(Array(repeating: .reset, count: 8), for: .chatCompletions)
            let reset = try await self.scenes(gateway)
            #expect(reset.status == 502)
            #expect(reset.errorCode == "UPSTREAM_ERROR")
            mock.faults.removeAll()
            #expect(try await self.scenes(gateway).status == 200)
        }
    }

    @Test("a hanging provider: 504 UPSTREAM_TIMEOUT within the deadline")
    func hang() async throws {
        try await self.run(timeoutSeconds: 1) { (gateway: GatewayHarness, mock: MockOpenAIServer) async throws in
            mock.faults.enqueue(.hang, .hang, .hang, for: .chatCompletions)
            let response = try await self.scenes(gateway)
            #expect(response.status == 504)
            #expect(response.errorCode == "UPSTREAM_TIMEOUT")
        }
    }

    @Test("a bad key is a 502 and the key never appears in the answer")
    func badKey() async throws {
        try await withMockOpenAI { mock, baseURL in
            _ = mock
            try await GatewayHarness.run(configure: {
                FunctionsEndToEndTests.dev(&$0)
                $0.openAIAPIKey = Secret("sk-wrong-key")
                $0.openAIBaseURL = baseURL
            }) { gateway in
                mock.faults.enqueue(.status(401), for: .chatCompletions)
                let response = try await self.scenes(gateway)
                #expect(response.status == 502)
                #expect(response.errorCode == "UPSTREAM_ERROR")
                #expect(!response.text.contains("sk-wrong-key"))
                #expect(mock.requests.filter { $0.endpoint == .chatCompletions }.count == 1)
            }
        }
    }

    @Test("a client that disconnects cancels the provider call (no transfer left hanging upstream)")
    func clientDisconnect() async throws {
        try await withLocalHTTPServer({ _ in
            try await Task.sleep(for: .seconds(60))
            return LocalResponse.json("{}")
        }) { upstream in
            try await GatewayHarness.run(configure: {
                FunctionsEndToEndTests.dev(&$0)
                $0.openAIAPIKey = Secret("sk-test-local")
                $0.openAIBaseURL = upstream.baseURL + "/v1"
            }) { gateway in
                let impatient = CurlRequest(
                    url: "http://127.0.0.1:\(gateway.port)/functions/v1/extract-scenes", method: "POST",
                    headers: [CurlHeader("X-User-Id", "kid-gone"), CurlHeader("Content-Type", "application/json")], body: Self.scenesBody,
                    timeout: .milliseconds(500)
                )
                await #expect(throws: CurlError.self) { try await gateway.client.execute(impatient) }
                // Bounded wait: the upstream connection closes only if the gateway cancelled its call.
                let closed = await withTaskGroup(of: Bool.self) { group in
                    group.addTask { await upstream.waitForClosedConnections(atLeast: 1); return true }
                    group.addTask { try? await Task.sleep(for: .seconds(20)); return false }
                    let first = await group.next() ?? false
                    group.cancelAll()
                    return first
                }
                #expect(closed)
                #expect(upstream.requestCount == 1)
            }
        }
    }
}
