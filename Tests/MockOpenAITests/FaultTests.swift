import CurlHTTP
import FoundationEssentials
@testable import MockOpenAI
import Testing

@Suite("Scripted faults")
struct FaultTests {
    @Test func rateLimitCarriesRetryAfterThenNormalAnswersResume() async throws {
        try await withMockServer { mock in
            mock.server.faults.enqueue(.status(429, retryAfter: 7), .status(500), .status(503), for: .chatCompletions)
            let limited = try await mock.post("/chat/completions", json: chatBody())
            expectOpenAIError(limited, status: 429, code: "rate_limit_exceeded")
            #expect(limited.header("Retry-After") == "7")
            let failed = try await mock.post("/chat/completions", json: chatBody())
            expectOpenAIError(failed, status: 500, type: "server_error")
            #expect(failed.header("Retry-After") == nil)
            let unavailable = try await mock.post("/chat/completions", json: chatBody())
            expectOpenAIError(unavailable, status: 503, type: "server_error")
            #expect(mock.server.faults.pending(for: .chatCompletions).isEmpty)
            let normal = try await mock.post("/chat/completions", json: chatBody())
            #expect(normal.status == 200)
        }
    }

    @Test func faultsApplyOnlyToTheirEndpoint() async throws {
        try await withMockServer { mock in
            mock.server.faults.enqueue(.status(500), for: .audioSpeech)
            let moderation = try await mock.post("/moderations", json: #"{"input":"x"}"#)
            #expect(moderation.status == 200)
            #expect(mock.server.faults.pending(for: .audioSpeech) == [.status(500)])
            mock.server.faults.removeAll()
            #expect(mock.server.faults.pending(for: .audioSpeech).isEmpty)
        }
    }

    @Test func hangNeverAnswersSoTheClientTimesOut() async throws {
        try await withMockServer { mock in
            mock.server.faults.enqueue(.hang, for: .chatCompletions)
            await #expect(throws: CurlError.timeout) {
                _ = try await mock.post("/chat/completions", json: chatBody(), timeout: .milliseconds(300))
            }
            // The next request is answered normally; stopping the server afterwards is not held up.
            let next = try await mock.post("/chat/completions", json: chatBody())
            #expect(next.status == 200)
        }
    }

    @Test func hangIsCutWhenTheServerStops() async throws {
        let provider = CannedProvider()
        let box = PortBox()
        let server = MockOpenAIServer(configuration: .init(), provider: provider, logger: .mockTests) { box.set($0) }
        let serverTask = Task { try await server.run() }
        let client = CurlClient(logger: .mockTests)
        let clientTask = Task { try await client.run() }
        defer { clientTask.cancel() }
        let port = try await box.wait()
        server.faults.enqueue(.hang, for: .moderations)
        let call = Task {
            try await client.execute(CurlRequest(
                url: "http://127.0.0.1:\(port)/v1/moderations", method: "POST",
                headers: [CurlHeader("Authorization", "Bearer sk-test")], body: Array(#"{"input":"x"}"#.utf8), timeout: .seconds(60)
            ))
        }
        // The request has arrived (and is hanging) once it is recorded.
        try await waitUntil { server.requests.count == 1 }
        serverTask.cancel()
        try? await serverTask.value  // returns: the hanging request does not hold up shutdown
        do {
            let response = try await call.value
            Issue.record("expected the connection to be cut, got \(response.status)")
        } catch let error as CurlError {
            #expect(error == .connectionReset)
        }
    }

    @Test func resetClosesTheConnectionWithoutAnAnswer() async throws {
        try await withMockServer { mock in
            mock.server.faults.enqueue(.reset, for: .audioSpeech)
            await #expect(throws: CurlError.connectionReset) {
                _ = try await mock.post("/audio/speech", json: #"{"model":"tts-1","voice":"coral","input":"hi"}"#)
            }
            let next = try await mock.post("/audio/speech", json: #"{"model":"tts-1","voice":"coral","input":"hi"}"#)
            #expect(next.status == 200)
        }
    }

    @Test func malformedJSONIs200WithGarbage() async throws {
        try await withMockServer { mock in
            mock.server.faults.enqueue(.malformedJSON, for: .chatCompletions)
            let response = try await mock.post("/chat/completions", json: chatBody())
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.body.starts(with: Array(#"{"choices": ["#.utf8)))
            #expect(JSONValue.parse(response.body) == nil)
        }
    }

    @Test func slowBodyArrivesComplete() async throws {
        try await withMockServer { mock in
            let expected = try await mock.post("/images/generations", json: #"{"prompt":"A fox"}"#)
            mock.server.faults.enqueue(.slowBody(.milliseconds(200)), for: .imagesGenerations)
            let slow = try await mock.post("/images/generations", json: #"{"prompt":"A fox"}"#)
            #expect(slow.status == 200)
            #expect(slow.header("Content-Length") == String(expected.body.count))
            var slowJSON = slow.json
            var expectedJSON = expected.json
            // Only `created` may differ between the two answers.
            if case .object(var members) = slowJSON { members["created"] = nil; slowJSON = .object(members) }
            if case .object(var members) = expectedJSON { members["created"] = nil; expectedJSON = .object(members) }
            #expect(slowJSON == expectedJSON)

            mock.server.faults.enqueue(.slowBody(.milliseconds(100)), for: .audioSpeech)
            let audio = try await mock.post("/audio/speech", json: #"{"model":"tts-1","voice":"coral","input":"hi"}"#)
            #expect(audio.body == CannedProvider.mp3)
        }
    }

    @Test func slowBodyIsCutByAShortClientTimeout() async throws {
        try await withMockServer { mock in
            mock.server.faults.enqueue(.slowBody(.seconds(30)), for: .audioSpeech)
            await #expect(throws: CurlError.timeout) {
                _ = try await mock.post("/audio/speech", json: #"{"model":"tts-1","voice":"coral","input":"hi"}"#, timeout: .milliseconds(300))
            }
        }
    }

    @Test func refusalShapesPerEndpoint() async throws {
        try await withMockServer { mock in
            mock.server.faults.enqueue(.refusal, for: .chatCompletions)
            mock.server.faults.enqueue(.refusal, for: .moderations)
            mock.server.faults.enqueue(.refusal, for: .imagesGenerations)
            mock.server.faults.enqueue(.refusal, for: .audioSpeech)

            let chat = try await mock.post("/chat/completions", json: chatBody())
            #expect(chat.status == 200)
            let choice = chat.json["choices"]?.arrayValue?.first
            #expect(choice?["message"]?["content"] == .null)
            #expect(choice?["message"]?["refusal"]?.stringValue?.isEmpty == false)
            #expect(choice?["finish_reason"] == .string("stop"))
            #expect(mock.provider.seen.chat == nil)

            let moderation = try await mock.post("/moderations", json: #"{"input":"x"}"#)
            #expect(moderation.json["results"]?.arrayValue?.first?["flagged"] == .bool(true))

            let image = try await mock.post("/images/generations", json: #"{"prompt":"x"}"#)
            expectOpenAIError(image, status: 400, code: "content_policy_violation")
            let speech = try await mock.post("/audio/speech", json: #"{"model":"tts-1","voice":"coral","input":"hi"}"#)
            expectOpenAIError(speech, status: 400, code: "content_policy_violation")
        }
    }
}
