import OpenAI
@testable import StoryFunctions
import Testing

/// Moderation refusals, and provider failures mapped to `FunctionError`.
@Suite struct ModerationAndErrorTests {
    static let flagging = ScriptedProvider.Script(moderation: { _ in ModerationResult(flagged: true, categories: ["violence"]) })

    enum Function: String, CaseIterable, Sendable { case story, customStory, scenes, audio, avatar, illustration }

    static func call(_ function: Function, _ service: StoryFunctionsService) async throws(FunctionError) -> [UInt8] {
        switch function {
        case .story: try await service.storyGeneration(body(Bodies.story()), caller: TestFixture.alice)
        case .customStory: try await service.storyGeneration(body(Bodies.story(custom: true)), caller: TestFixture.alice)
        case .scenes: try await service.extractScenes(body(Bodies.scenes), caller: TestFixture.alice)
        case .audio: try await service.audioSynthesis(body(Bodies.audio()), caller: TestFixture.alice)
        case .avatar: try await service.avatarGeneration(body(Bodies.avatar), caller: TestFixture.alice)
        case .illustration: try await service.sceneIllustration(body(Bodies.illustration()), caller: TestFixture.alice)
        }
    }

    @Test(arguments: Function.allCases)
    func flaggedTextIsRefusedBeforeAnyGeneration(_ function: Function) async {
        let provider = ScriptedProvider(Self.flagging)
        let fixture = TestFixture(provider: provider)
        defer { fixture.close() }
        let error = await expectFunctionError { () async throws(FunctionError) in try await Self.call(function, fixture.service) }
        #expect(error?.status == 400)
        #expect(error?.code == "CONTENT_POLICY_VIOLATION")
        #expect(error?.message.contains("not allowed") == true)
        #expect(provider.calls.moderation.count == 1)
        #expect(provider.calls.moderation.first?.model == "omni-moderation-latest")
        #expect(provider.calls.generations == 0)
    }

    @Test func refusalNeverEchoesTheText() async {
        let fixture = TestFixture()  // offline: flags the test marker
        defer { fixture.close() }
        let text = "A secret sentence [[flag]] nobody should see"
        let error = await expectFunctionError { () async throws(FunctionError) in
            try await fixture.service.audioSynthesis(body(Bodies.audio(text)), caller: TestFixture.alice)
        }
        #expect(error?.code == "CONTENT_POLICY_VIOLATION")
        #expect(error?.message.contains("secret") == false)
        #expect(error?.description.contains("secret") == false)
    }

    @Test(arguments: [
        (AIError.Kind.contentPolicy, 400, "CONTENT_POLICY_VIOLATION"),
        (.rateLimited, 503, "UPSTREAM_RATE_LIMITED"),
        (.timeout, 504, "UPSTREAM_TIMEOUT"),
        (.upstream, 502, "UPSTREAM_ERROR"),
        (.invalidResponse, 502, "UPSTREAM_ERROR"),
        (.unavailable, 502, "UPSTREAM_ERROR"),
    ])
    func providerErrorsAreMapped(kind: AIError.Kind, status: Int, code: String) async {
        let failure = AIError(kind, "provider said no", retryAfter: kind == .rateLimited ? 7 : nil, status: 500)
        let script = ScriptedProvider.Script(
            chat: { _ throws(AIError) in throw failure }, speech: { _ throws(AIError) in throw failure },
            image: { () throws(AIError) in throw failure }
        )
        let fixture = TestFixture(provider: ScriptedProvider(script))
        defer { fixture.close() }
        for function in [Function.story, .scenes, .audio, .avatar, .illustration] {
            let error = await expectFunctionError { () async throws(FunctionError) in try await Self.call(function, fixture.service) }
            #expect(error?.status == status, "\(function)")
            #expect(error?.code == code)
            #expect(error?.ai == failure)
        }
    }

    @Test func moderationFailureFailsClosed() async {
        let script = ScriptedProvider.Script(moderation: { _ throws(AIError) in throw AIError(.timeout, "slow") })
        let provider = ScriptedProvider(script)
        let fixture = TestFixture(provider: provider)
        defer { fixture.close() }
        let error = await expectFunctionError { () async throws(FunctionError) in try await Self.call(.avatar, fixture.service) }
        #expect(error?.status == 504)
        #expect(provider.calls.generations == 0)
    }

    @Test(arguments: [
        "not json", "{\"title\": \"T\"}", "{\"title\": \"T\", \"content\": \"C\", \"scenes\": []}",
        "{\"title\": \"\", \"content\": \"C\", \"scenes\": [{\"number\": 1, \"content\": \"c\", \"visualization_prompt\": \"v\"}]}",
        "{\"title\": \"T\", \"content\": \"C\", \"scenes\": [{\"number\": \"1\", \"content\": \"c\", \"visualization_prompt\": \"v\"}]}",
        "{\"title\": \"T\", \"content\": \"C\", \"scenes\": [{\"number\": 1, \"content\": \" \", \"visualization_prompt\": \"v\"}]}",
    ])
    func malformedStoryAnswerIsUpstreamError(answer: String) async {
        let script = ScriptedProvider.Script(chat: { _ in StructuredChatResult(json: Array(answer.utf8), promptTokens: 0, completionTokens: 0) })
        let fixture = TestFixture(provider: ScriptedProvider(script))
        defer { fixture.close() }
        let error = await expectFunctionError { () async throws(FunctionError) in try await Self.call(.story, fixture.service) }
        #expect(error?.status == 502)
        #expect(error?.code == "UPSTREAM_ERROR")
        #expect(error?.ai?.kind == .invalidResponse)
    }

    @Test func storyScenesAreRenumbered() async throws {
        let answer = "{\"title\": \" T \", \"content\": \"One two three.\", \"scenes\": [{\"number\": 7, \"content\": \"a\", \"visualization_prompt\": \"v\"}, {\"number\": 3, \"content\": \"b\", \"visualization_prompt\": \"w\"}], \"extra\": 1}"
        let script = ScriptedProvider.Script(chat: { _ in StructuredChatResult(json: Array(answer.utf8), promptTokens: 0, completionTokens: 0) })
        let fixture = TestFixture(provider: ScriptedProvider(script))
        defer { fixture.close() }
        let response = try object(try await Self.call(.story, fixture.service))
        let story = try #require(response["story"] as? [String: Any])
        #expect(story["title"] as? String == "T")
        #expect((story["scenes"] as? [[String: Any]])?.map { $0["number"] as? Int } == [1, 2])
        #expect(response["word_count"] as? Int == 3)
        #expect(response["estimated_duration"] as? Int == 1)
    }

    @Test func nonMediaAnswersAreUpstreamErrors() async {
        let script = ScriptedProvider.Script(
            speech: { _ in Array("<html>oops</html>".utf8) },
            image: { ImageResult(png: Array("GIF89a".utf8), revisedPrompt: nil) }
        )
        let fixture = TestFixture(provider: ScriptedProvider(script))
        defer { fixture.close() }
        for function in [Function.audio, .avatar, .illustration] {
            let error = await expectFunctionError { () async throws(FunctionError) in try await Self.call(function, fixture.service) }
            #expect(error?.status == 502)
            #expect(error?.ai?.kind == .invalidResponse)
        }
    }
}
