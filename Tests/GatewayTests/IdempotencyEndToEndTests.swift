import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import MockOpenAI
import Testing
import TestSupport

/// Function calls under an Idempotency-Key through the real gateway to a local fake OpenAI: one paid call per key,
/// replays and joins with the same answer, the key's errors, and a run that outlives its client.
@Suite("Idempotency-Key end to end")
struct IdempotencyEndToEndTests {
    /// One request body per function (the scene illustration without a hero reference).
    static let bodies: [(function: String, body: [UInt8])] = [
        ("story-generation", FunctionsEndToEndTests.json(FunctionsEndToEndTests.story)),
        ("extract-scenes", OpenAIPathEndToEndTests.scenesBody),
        ("audio-synthesis", FunctionsEndToEndTests.json(["text": "Once upon a time, a kite flew away. It was found.", "language": "en"])),
        ("avatar-generation", FunctionsEndToEndTests.json(["hero_id": "hero-1", "prompt": "a brave girl with curly red hair", "style": "vivid"])),
        ("scene-illustration", FunctionsEndToEndTests.json(["story_id": "s1", "scene_number": 1, "prompt": "Mila under the oak", "style": "natural"])),
    ]

    static func run(
        latency: Duration = .zero, _ body: @escaping @Sendable (GatewayHarness, MockOpenAIServer) async throws -> Void
    ) async throws {
        var mock = MockOpenAIConfiguration()
        mock.latency = latency
        try await withMockOpenAI(mock) { mock, baseURL in
            try await GatewayHarness.run(configure: {
                FunctionsEndToEndTests.dev(&$0)
                $0.openAIAPIKey = Secret("sk-test-local")
                $0.openAIBaseURL = baseURL
            }) { gateway in
                try await body(gateway, mock)
            }
        }
    }

    static func call(
        _ gateway: GatewayHarness, _ function: String, _ body: [UInt8], key: String?, uid: String = "kid-1", extra: [(String, String)] = []
    ) async throws -> CurlResponse {
        var headers = [("X-User-Id", uid), ("Content-Type", "application/json")] + extra
        if let key { headers.append(("Idempotency-Key", key)) }
        return try await gateway.request("POST", "/functions/v1/\(function)", headers: headers, body: body)
    }

    /// The provider calls other than moderation (the paid ones).
    static func paidCalls(_ mock: MockOpenAIServer) -> Int {
        mock.requests.filter { $0.endpoint != .moderations }.count
    }

    @Test("the same key twice on each function: one OpenAI call, the same body, replayed, one rate-limit token")
    func replayOnEveryFunction() async throws {
        try await Self.run { gateway, mock in
            for (index, (function, body)) in Self.bodies.enumerated() {
                let key = "\"\(UUID().uuidString)\""
                let before = Self.paidCalls(mock)
                let first = try await Self.call(gateway, function, body, key: key)
                #expect(first.status == 200, "\(function): \(first.text.prefix(300))")
                #expect(first.header("Idempotent-Replayed") == nil)
                let afterFirst = Self.paidCalls(mock)
                #expect(afterFirst > before, "\(function) called OpenAI")
                let second = try await Self.call(gateway, function, body, key: key)
                #expect(second.status == 200)
                #expect(second.header("Idempotent-Replayed") == "true", "\(function)")
                #expect(second.body == first.body, "\(function): the replay is the first answer")
                #expect(second.header("Content-Type") == "application/json")
                #expect(Self.paidCalls(mock) == afterFirst, "\(function): no second OpenAI call")
                // The replay spent no token: the next allowed call sees one fewer than the first.
                #expect(second.header("RateLimit") == nil)
                let metrics = ObservabilityTests.samples(try await gateway.settledMetrics())
                #expect(metrics["storygate_rate_limit_decisions_total{limit=\"\(function)\",decision=\"allowed\"}"] == 1, "\(function)")
                #expect(metrics["storygate_idempotency_requests_total{outcome=\"replayed\"}"] == Double(index + 1))
            }
        }
    }

    @Test("20 concurrent requests with one key: one OpenAI call, 20 identical answers")
    func concurrentJoin() async throws {
        try await Self.run(latency: .milliseconds(300)) { gateway, mock in
            let key = "\"join-\(UUID().uuidString)\""
            let responses = try await withThrowingTaskGroup(of: CurlResponse.self) { group in
                for _ in 0..<20 {
                    group.addTask { try await Self.call(gateway, "extract-scenes", OpenAIPathEndToEndTests.scenesBody, key: key) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.allSatisfy { $0.status == 200 }, "\(responses.map(\.status))")
            #expect(Set(responses.map(\.body)).count == 1)
            #expect(responses.filter { $0.header("Idempotent-Replayed") == nil }.count == 1)
            #expect(mock.requests.filter { $0.endpoint == .chatCompletions }.count == 1)
        }
    }

    @Test("another body under the key: 422; a malformed key: 400; another user's identical key: its own call")
    func keyErrors() async throws {
        try await Self.run { gateway, mock in
            let body = OpenAIPathEndToEndTests.scenesBody
            #expect(try await Self.call(gateway, "extract-scenes", body, key: "\"k-1\"").status == 200)
            let reused = try await Self.call(gateway, "extract-scenes", Array(body.dropLast()) + Array(" }".utf8), key: "\"k-1\"")
            #expect(reused.status == 422)
            #expect(reused.errorCode == "IDEMPOTENCY_KEY_REUSED")
            // Another route under the same key is another record.
            #expect(try await Self.call(gateway, "story-generation", Self.bodies[0].body, key: "\"k-1\"").status == 200)
            for bad in ["k-1", "\"\"", "42", "\"\(String(repeating: "a", count: 256))\"", "\"a\" \"b\"", "(\"a\")", "\"é\""] {
                let response = try await Self.call(gateway, "extract-scenes", body, key: bad)
                #expect(response.status == 400, "\(bad)")
                #expect(response.errorCode == "INVALID_IDEMPOTENCY_KEY", "\(bad)")
            }
            let twice = try await Self.call(gateway, "extract-scenes", body, key: "\"a\"", extra: [("Idempotency-Key", "\"b\"")])
            #expect(twice.errorCode == "INVALID_IDEMPOTENCY_KEY")
            // A 255-character key and parameters are fine.
            #expect(try await Self.call(gateway, "extract-scenes", body, key: "\"\(String(repeating: "b", count: 255))\";v=1").status == 200)
            let before = mock.requests.filter { $0.endpoint == .chatCompletions }.count
            let other = try await Self.call(gateway, "extract-scenes", body, key: "\"k-1\"", uid: "kid-2")
            #expect(other.status == 200)
            #expect(other.header("Idempotent-Replayed") == nil)
            #expect(mock.requests.filter { $0.endpoint == .chatCompletions }.count == before + 1)
        }
    }

    @Test("a body over the limit is 413 before any record; a failed run frees the key")
    func refusalsKeepNothing() async throws {
        try await Self.run { gateway, mock in
            let huge = [UInt8](repeating: UInt8(ascii: "a"), count: 2 << 20)
            let tooLarge = try await Self.call(gateway, "extract-scenes", huge, key: "\"big\"")
            #expect(tooLarge.status == 413)
            #expect(try await Self.call(gateway, "extract-scenes", OpenAIPathEndToEndTests.scenesBody, key: "\"big\"").status == 200)
            // A 502 is not kept: the retry runs again and succeeds.
            mock.faults.enqueue(.status(500), for: .chatCompletions)
            mock.faults.enqueue(.status(500), for: .chatCompletions)
            mock.faults.enqueue(.status(500), for: .chatCompletions)
            let failed = try await Self.call(gateway, "extract-scenes", OpenAIPathEndToEndTests.scenesBody, key: "\"flaky\"")
            #expect(failed.status == 502, "\(failed.text.prefix(200))")
            let retried = try await Self.call(gateway, "extract-scenes", OpenAIPathEndToEndTests.scenesBody, key: "\"flaky\"")
            #expect(retried.status == 200)
            #expect(retried.header("Idempotent-Replayed") == nil)
        }
    }

    @Test("the client leaves during a keyed generation: it runs to its end and the retry gets its answer, one OpenAI call")
    func outlivesTheClient() async throws {
        try await Self.run(latency: .milliseconds(1500)) { gateway, mock in
            let body = OpenAIPathEndToEndTests.scenesBody
            let head = "POST /functions/v1/extract-scenes HTTP/1.1\r\nHost: x\r\nX-User-Id: kid-9\r\nContent-Type: application/json\r\n"
                + "Idempotency-Key: \"leaving\"\r\nContent-Length: \(body.count)\r\n\r\n"
            let port = gateway.port
            let fd = try await RawSocketClient.onThread { try RawSocketClient.connected(port: port, receiveTimeout: .seconds(5), sendTimeout: .seconds(5)) }
            let bytes = Array(head.utf8) + body
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            // The gateway has reached OpenAI: the client goes.
            for _ in 0..<500 where mock.requests.filter({ $0.endpoint == .chatCompletions }).isEmpty {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(mock.requests.filter { $0.endpoint == .chatCompletions }.count == 1)
            close(fd)
            let retry = try await Self.call(gateway, "extract-scenes", body, key: "\"leaving\"", uid: "kid-9")
            #expect(retry.status == 200, "\(retry.text.prefix(300))")
            #expect(retry.header("Idempotent-Replayed") == "true")
            #expect((retry.json["scenes"] as? [Any])?.count == 2)
            #expect(mock.requests.filter { $0.endpoint == .chatCompletions }.count == 1)
        }
    }
}
