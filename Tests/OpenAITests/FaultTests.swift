import OpenAI
import Testing
import TestSupport

/// Upstream faults over real HTTP: what is retried, how often, and the `AIError` each one becomes.
@Suite("OpenAIClient faults: retries and error mapping")
struct FaultTests {
    static let moderation = ModerationRequest(model: "omni-moderation-latest", input: "user text: the dragon")
    static let chat = EndpointTests.chatRequest
    static let image = ImageRequest(model: "gpt-image-2.5-flare", prompt: "prompt text: a fox", size: "1024x1024", quality: "low", safetyIdentifier: "h")
    static let okModeration = Fixtures.moderation(flagged: false, categories: ["violence": false])
    static let rateLimited = Fixtures.error(status: 429, code: "rate_limit_exceeded", type: "requests", headers: [("Retry-After", "1")])

    @Test("429 with Retry-After, then success: retried once after the wait")
    func rateLimitedThenSuccess() async throws {
        try await withFakeOpenAI(sequence(Self.rateLimited, Self.okModeration)) { client, fake in
            let result = try await client.moderate(Self.moderation)
            #expect(result.flagged == false)
            #expect(fake.attempts == 2)
        }
    }

    @Test("429 forever: rateLimited with the Retry-After after exactly maxAttempts attempts")
    func rateLimitedForever() async throws {
        let logs = CapturedLogs()
        try await withFakeOpenAI(logs: logs, sequence(Self.rateLimited)) { client, fake in
            let error = await expectAIError { () async throws(AIError) in try await client.moderate(Self.moderation) }
            #expect(error?.kind == .rateLimited)
            #expect(error?.retryAfter == 1)
            #expect(error?.status == 429)
            #expect(fake.attempts == 3)
        }
        #expect(logs.warnings.map { $0.metadata["openai.attempt"] } == ["1", "2", "3"])
        #expect(logs.warnings.allSatisfy { $0.metadata["openai.status"] == "429" && $0.metadata["openai.error"] == "rate_limited" && $0.metadata["openai.endpoint"] == "moderations" })
    }

    @Test("429 without Retry-After: rateLimited with the default retryAfter")
    func rateLimitedDefault() async throws {
        try await withFakeOpenAI(sequence(Fixtures.error(status: 429, code: "rate_limit_exceeded"))) { client, fake in
            let error = await expectAIError { () async throws(AIError) in try await client.moderate(Self.moderation) }
            #expect(error?.kind == .rateLimited)
            #expect(error?.retryAfter == 20)
            #expect(fake.attempts == 3)
        }
    }

    @Test("a Retry-After past the deadline: no wait, rateLimited at once")
    func retryAfterPastDeadline() async throws {
        var settings = ClientSettings()
        settings.deadline = .seconds(5)
        let answer = Fixtures.error(status: 429, code: "rate_limit_exceeded", headers: [("Retry-After", "30")])
        try await withFakeOpenAI(settings: settings, sequence(answer, Self.okModeration)) { client, fake in
            let error = await expectAIError { () async throws(AIError) in try await client.moderate(Self.moderation) }
            #expect(error?.kind == .rateLimited)
            #expect(error?.retryAfter == 30)
            #expect(fake.attempts == 1)
        }
    }

    @Test("429 insufficient_quota is not retried")
    func quotaNotRetried() async throws {
        try await withFakeOpenAI(sequence(Fixtures.error(status: 429, code: "insufficient_quota", type: "insufficient_quota"), Self.okModeration)) { client, fake in
            let error = await expectAIError { () async throws(AIError) in try await client.moderate(Self.moderation) }
            #expect(error?.kind == .upstream)
            #expect(fake.attempts == 1)
        }
    }

    @Test("500 and 503, then success: three attempts")
    func serverErrorsThenSuccess() async throws {
        try await withFakeOpenAI(sequence(.text("boom", status: 500), Fixtures.error(status: 503, code: nil, type: "server_error"), Fixtures.chat(content: "{}"))) { client, fake in
            _ = try await client.structuredChat(Self.chat)
            #expect(fake.attempts == 3)
        }
    }

    @Test("502 and 504, then success")
    func gatewayErrorsThenSuccess() async throws {
        try await withFakeOpenAI(sequence(.text("bad gateway", status: 502), .text("gateway timeout", status: 504), Self.okModeration)) { client, fake in
            _ = try await client.moderate(Self.moderation)
            #expect(fake.attempts == 3)
        }
    }

    @Test("500 forever: upstream 500 after maxAttempts attempts")
    func serverErrorForever() async throws {
        try await withFakeOpenAI(sequence(.text("boom", status: 500))) { client, fake in
            let error = await expectAIError { () async throws(AIError) in try await client.moderate(Self.moderation) }
            #expect(error?.kind == .upstream)
            #expect(error?.status == 500)
            #expect(fake.attempts == 3)
        }
    }

    @Test("400, 403, 404 and 422 are never retried", arguments: [400, 403, 404, 422])
    func clientErrorsNotRetried(status: Int) async throws {
        try await withFakeOpenAI(sequence(Fixtures.error(status: status, code: "invalid_value"), Self.okModeration)) { client, fake in
            let error = await expectAIError { () async throws(AIError) in try await client.moderate(Self.moderation) }
            #expect(error?.kind == .upstream)
            #expect(error?.status == status)
            #expect(fake.attempts == 1)
        }
    }

    @Test("401: upstream after one attempt; neither the error nor a log line holds the key or the user's text")
    func badKey() async throws {
        let logs = CapturedLogs()
        let answer = Fixtures.error(status: 401, code: "invalid_api_key", message: "Incorrect API key provided: \(Fixtures.apiKey).")
        try await withFakeOpenAI(logs: logs, sequence(answer, Self.okModeration)) { client, fake in
            let error = await expectAIError { () async throws(AIError) in try await client.moderate(Self.moderation) }
            #expect(error?.kind == .upstream)
            #expect(error?.status == 401)
            #expect(fake.attempts == 1)
            let description = String(describing: error)
            #expect(!description.contains(Fixtures.apiKey) && !description.contains("SECRET"))
        }
        #expect(logs.warnings.count == 1)
        for line in logs.all {
            #expect(!line.text.contains("SECRET"))
            #expect(!line.text.contains("Bearer"))
            #expect(!line.text.contains("dragon"))
        }
    }

    @Test("a hanging server: timeout at the deadline, one attempt")
    func hangingServer() async throws {
        var settings = ClientSettings()
        settings.deadline = .milliseconds(500)
        try await withFakeOpenAI(settings: settings, { _, _ in
            try await Task.sleep(for: .seconds(60))
            return Self.okModeration
        }) { client, fake in
            let error = await expectAIError { () async throws(AIError) in try await client.moderate(Self.moderation) }
            #expect(error?.kind == .timeout)
            #expect(fake.attempts == 1)
        }
    }

    @Test("a slow answer past the deadline: timeout")
    func slowAnswer() async throws {
        var settings = ClientSettings()
        settings.deadline = .milliseconds(500)
        try await withFakeOpenAI(settings: settings, { _, _ in
            try await Task.sleep(for: .seconds(2))
            return Fixtures.images()
        }) { client, _ in
            let error = await expectAIError { () async throws(AIError) in try await client.generateImage(Self.image) }
            #expect(error?.kind == .timeout)
        }
    }

    @Test("connection reset on every attempt: retried, then unavailable")
    func connectionReset() async throws {
        let logs = CapturedLogs()
        try await withLocalRawServer(.resetAfterRequest) { server in
            try await withOpenAIClient(baseURL: server.baseURL + "/v1", logs: logs) { client in
                let error = await expectAIError { () async throws(AIError) in try await client.moderate(Self.moderation) }
                #expect(error?.kind == .unavailable)
            }
        }
        #expect(logs.warnings.map { $0.metadata["openai.attempt"] } == ["1", "2", "3"])
        #expect(logs.warnings.allSatisfy { $0.metadata["openai.error"] == "unavailable" })
    }

    @Test("a server that closes without answering: retried (three requests), then unavailable")
    func closedWithoutAnswer() async throws {
        struct Hangup: Error {}
        try await withFakeOpenAI({ _, _ in throw Hangup() }) { client, fake in
            let error = await expectAIError { () async throws(AIError) in try await client.moderate(Self.moderation) }
            #expect(error?.kind == .unavailable)
            #expect(fake.attempts == 3)
        }
    }

    @Test("a closed connection, then success")
    func closedThenSuccess() async throws {
        struct Hangup: Error {}
        try await withFakeOpenAI({ _, n in
            if n == 0 { throw Hangup() }
            return Self.okModeration
        }) { client, fake in
            _ = try await client.moderate(Self.moderation)
            #expect(fake.attempts == 2)
        }
    }

    @Test("garbage instead of HTTP: invalidResponse, not retried")
    func garbage() async throws {
        let logs = CapturedLogs()
        try await withLocalRawServer(.reply(Array("NOT HTTP AT ALL\r\n\r\n".utf8))) { server in
            try await withOpenAIClient(baseURL: server.baseURL + "/v1", logs: logs) { client in
                let error = await expectAIError { () async throws(AIError) in try await client.moderate(Self.moderation) }
                #expect(error?.kind == .invalidResponse)
            }
        }
        #expect(logs.warnings.map { $0.metadata["openai.attempt"] } == ["1"])
    }

    @Test("malformed or wrongly shaped JSON: invalidResponse, one attempt", arguments: [
        #"{"choices": [ {"message": "#,
        #"{"object":"list","data":[]}"#,
        #"{"choices":[]}"#,
        #"{"choices":[{"finish_reason":"length","message":{"content":"{\"title\":\"Fo"}}]}"#,
    ])
    func malformed(body: String) async throws {
        try await withFakeOpenAI(sequence(.json(body))) { client, fake in
            let error = await expectAIError { () async throws(AIError) in try await client.structuredChat(Self.chat) }
            #expect(error?.kind == .invalidResponse)
            #expect(fake.attempts == 1)
        }
    }

    @Test("a chat refusal or a content_filter finish: contentPolicy")
    func chatRefusal() async throws {
        try await withFakeOpenAI(sequence(Fixtures.chatRefusal, Fixtures.chat(content: "{}", finishReason: "content_filter"))) { client, fake in
            for _ in 0..<2 {
                let error = await expectAIError { () async throws(AIError) in try await client.structuredChat(Self.chat) }
                #expect(error?.kind == .contentPolicy)
            }
            #expect(fake.attempts == 2)
        }
    }

    @Test("an image 400 content_policy_violation: contentPolicy, not retried")
    func imageContentPolicy() async throws {
        let refusal = Fixtures.error(status: 400, code: "content_policy_violation", message: "Your request was rejected as a result of our safety system.")
        try await withFakeOpenAI(sequence(refusal)) { client, fake in
            let generated = await expectAIError { () async throws(AIError) in try await client.generateImage(Self.image) }
            #expect(generated?.kind == .contentPolicy)
            let edited = await expectAIError { () async throws(AIError) in
                try await client.editImage(ImageEditRequest(model: "gpt-image-2.5-flare", prompt: "p", image: Fixtures.png, size: "auto", quality: "auto", safetyIdentifier: "h"))
            }
            #expect(edited?.kind == .contentPolicy)
            #expect(fake.attempts == 2)
        }
    }

    @Test("a schema that is not JSON: no request is sent")
    func unbuildable() async throws {
        try await withFakeOpenAI(sequence(Fixtures.chat(content: "{}"))) { client, fake in
            var request = Self.chat
            request.schemaJSON = "not json"
            let error = await expectAIError { () async throws(AIError) in try await client.structuredChat(request) }
            #expect(error?.kind == .upstream)
            #expect(fake.attempts == 0)
        }
    }
}
