import Foundation
import OpenAI
@testable import StoryFunctions
import Testing

/// Each handler end to end through `StoryFunctionsService` with the offline provider and a real `FileMediaStore`.
@Suite struct HandlerContractTests {
    @Test(arguments: [30, 300, 900, 1800])
    func storyLengthFollowsTargetDuration(duration: Int) async throws {
        let fixture = TestFixture()
        defer { fixture.close() }
        let response = try object(try await fixture.service.storyGeneration(body(Bodies.story(duration: duration)), caller: TestFixture.alice))
        let story = try #require(response["story"] as? [String: Any])
        let content = try #require(story["content"] as? String)
        let target = Double(duration) / 60 * 150
        let words = try #require(response["word_count"] as? Int)
        #expect(abs(Double(words) - target) <= max(3, target * 0.1))
        #expect(words == content.split(whereSeparator: \.isWhitespace).count)
        #expect(response["estimated_duration"] as? Int == Int((Double(words) / 150 * 60).rounded()))
        #expect(!(try #require(story["title"] as? String)).isEmpty)
        let scenes = try #require(story["scenes"] as? [[String: Any]])
        #expect((3...6).contains(scenes.count))
        #expect(scenes.map { $0["number"] as? Int } == Array(1...scenes.count))
        for scene in scenes {
            #expect(!((scene["content"] as? String) ?? "").isEmpty)
            #expect(!((scene["visualization_prompt"] as? String) ?? "").isEmpty)
        }
        let storyID = try #require(response["story_id"] as? String)
        #expect(UUID(uuidString: storyID) != nil)
    }

    @Test func storyRequestCarriesSchemaLanguageAndSafety() async throws {
        let provider = ScriptedProvider()
        let fixture = TestFixture(provider: provider)
        defer { fixture.close() }
        _ = try await fixture.service.storyGeneration(body(Bodies.story(duration: 600, language: "fr-FR", custom: true)), caller: TestFixture.alice)
        let calls = provider.calls
        #expect(calls.moderation.count == 1)
        #expect(calls.moderation[0].input.contains("Lost kite"))
        #expect(calls.moderation[0].input.contains("Mila"))
        let chat = try #require(calls.chat.first)
        #expect(chat.schemaName == "story")
        #expect(chat.model == "gpt-5")
        #expect(chat.safetyIdentifier == "hash-alice")
        #expect(chat.system.contains("French"))
        #expect(chat.system.contains("about 1500 words"))
        #expect(chat.system.contains("Safety:"))
        #expect(chat.user.contains("Lost kite"))
        // The schema is strict: every object closed and fully required.
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(chat.schemaJSON.utf8)) as? [String: Any])
        try Self.expectStrict(schema)
    }

    static func expectStrict(_ schema: [String: Any]) throws {
        if schema["type"] as? String == "object" {
            #expect(schema["additionalProperties"] as? Bool == false)
            let properties = try #require(schema["properties"] as? [String: Any])
            #expect(Set((schema["required"] as? [String]) ?? []) == Set(properties.keys))
            for case let child as [String: Any] in properties.values { try self.expectStrict(child) }
        }
        if let items = schema["items"] as? [String: Any] { try self.expectStrict(items) }
    }

    @Test(arguments: [1, 3, 5])
    func extractScenesReturnsTheRequestedCount(count: Int) async throws {
        let fixture = TestFixture()
        defer { fixture.close() }
        var request = Bodies.scenes
        request["target_scene_count"] = count
        let response = try object(try await fixture.service.extractScenes(body(request), caller: TestFixture.alice))
        let scenes = try #require(response["scenes"] as? [[String: Any]])
        #expect(scenes.count == count)
        #expect(scenes.map { $0["number"] as? Int } == Array(1...count))
    }

    @Test func extractScenesCapsTheCountAtTheSentences() async throws {
        let provider = ScriptedProvider()
        let fixture = TestFixture(provider: provider)
        defer { fixture.close() }
        let request: [String: Any] = ["story_content": "One short story. It has two sentences.", "target_scene_count": 10]
        let response = try object(try await fixture.service.extractScenes(body(request), caller: TestFixture.alice))
        #expect((response["scenes"] as? [Any])?.count == 2)
        #expect(provider.calls.chat.first?.system.contains("exactly 2 scenes") == true)
    }

    @Test func extractScenesTrimsExtraAndRefusesTooFewScenes() async throws {
        @Sendable func answer(_ count: Int) -> [UInt8] {
            let scenes = (0..<count).map { ["number": 9, "content": "Scene \($0)", "visualization_prompt": "A hill"] as [String: Any] }
            return body(["scenes": scenes])
        }
        let many = TestFixture(provider: ScriptedProvider(.init(chat: { _ in StructuredChatResult(json: answer(6), promptTokens: 1, completionTokens: 1) })))
        defer { many.close() }
        let response = try object(try await many.service.extractScenes(body(Bodies.scenes), caller: TestFixture.alice))
        #expect((response["scenes"] as? [[String: Any]])?.map { $0["number"] as? Int } == [1, 2, 3])

        let few = TestFixture(provider: ScriptedProvider(.init(chat: { _ in StructuredChatResult(json: answer(2), promptTokens: 1, completionTokens: 1) })))
        defer { few.close() }
        let error = await expectFunctionError { () async throws(FunctionError) in try await few.service.extractScenes(body(Bodies.scenes), caller: TestFixture.alice) }
        #expect(error?.status == 502)
        #expect(error?.ai?.kind == .invalidResponse)
    }

    @Test(arguments: [0.5, 1.0, 2.0])
    func audioDurationComesFromTheFrames(speed: Double) async throws {
        let fixture = TestFixture()
        defer { fixture.close() }
        let text = String(repeating: "The little fox found a lantern in the forest. ", count: 20)  // 180 words
        let response = try object(try await fixture.service.audioSynthesis(body(Bodies.audio(text, speed: speed)), caller: TestFixture.alice))
        let url = try #require(response["audio_url"] as? String)
        #expect(url.hasPrefix("/media/"))
        let duration = try #require(response["duration"] as? Double)
        let expected = 180.0 / 150 * 60 / speed
        #expect(abs(duration - expected) <= 0.036 + 0.005)  // whole frames, rounded to 0.01
        let key = TestFixture.key(ofURL: url)
        let stored = try #require(try await fixture.store.metadata(key))
        #expect(stored.contentType == "audio/mpeg")
        #expect(stored.owner == "uid-alice")
        let bytes = try #require(try await fixture.store.read(key, range: nil))
        #expect(bytes.count == stored.byteCount)
        #expect(abs((MP3.duration(of: bytes) ?? 0) - duration) < 0.01)
    }

    @Test func audioSendsVoiceSpeedAndLanguage() async throws {
        let provider = ScriptedProvider()
        let fixture = TestFixture(provider: provider)
        defer { fixture.close() }
        var request = Bodies.audio(speed: 1.5)
        request["voice"] = "Marin"
        request["language"] = "de"
        _ = try await fixture.service.audioSynthesis(body(request), caller: TestFixture.alice)
        let speech = try #require(provider.calls.speech.first)
        #expect(speech.voice == "marin")
        #expect(speech.speed == 1.5)
        #expect(speech.model == "gpt-4o-mini-tts")
        #expect(speech.instructions?.contains("German") == true)
        request["voice"] = nil
        _ = try await fixture.service.audioSynthesis(body(request), caller: TestFixture.alice)
        #expect(provider.calls.speech.last?.voice == "coral")
    }

    @Test func avatarIsStoredAsPNGOwnedByTheCaller() async throws {
        let fixture = TestFixture()
        defer { fixture.close() }
        let response = try object(try await fixture.service.avatarGeneration(body(Bodies.avatar), caller: TestFixture.alice))
        let url = try #require(response["image_url"] as? String)
        let id = try #require(response["generation_id"] as? String)
        #expect(url == "/media/\(id)")
        #expect(MediaKey.isWellFormed(id))
        let revised = try #require(response["revised_prompt"] as? String)
        #expect(revised.contains("A brave girl with red boots"))
        #expect(revised.contains("Child-safe"))
        let stored = try #require(try await fixture.store.metadata(id))
        #expect(stored.contentType == "image/png")
        #expect(stored.owner == "uid-alice")
        #expect(PNG.isPNG(try #require(try await fixture.store.read(id, range: nil))))
    }

    @Test func revisedPromptIsTheProvidersWhenItHasOne() async throws {
        let png = PNG.image(width: 4, height: 4, seed: 1)
        let fixture = TestFixture(provider: ScriptedProvider(.init(image: { ImageResult(png: png, revisedPrompt: "A girl in red boots, revised") })))
        defer { fixture.close() }
        let response = try object(try await fixture.service.avatarGeneration(body(Bodies.avatar), caller: TestFixture.alice))
        #expect(response["revised_prompt"] as? String == "A girl in red boots, revised")
    }

    @Test func illustrationWithoutHeroGeneratesAnImage() async throws {
        let provider = ScriptedProvider()
        let fixture = TestFixture(provider: provider)
        defer { fixture.close() }
        let response = try object(try await fixture.service.sceneIllustration(body(Bodies.illustration()), caller: TestFixture.alice))
        let id = try #require(response["generation_id"] as? String)
        #expect(response["image_url"] as? String == "/media/\(id)")
        #expect(provider.calls.generate.count == 1)
        #expect(provider.calls.edit.isEmpty)
        #expect(provider.calls.generate[0].prompt.contains("scene 2"))
        #expect(try await fixture.store.metadata(id)?.contentType == "image/png")
    }

    @Test func illustrationWithHeroEditsTheStoredAvatar() async throws {
        let provider = ScriptedProvider()
        let fixture = TestFixture(provider: provider)
        defer { fixture.close() }
        let avatar = try object(try await fixture.service.avatarGeneration(body(Bodies.avatar), caller: TestFixture.alice))
        let heroID = try #require(avatar["generation_id"] as? String)
        let response = try object(try await fixture.service.sceneIllustration(body(Bodies.illustration(hero: heroID)), caller: TestFixture.alice))
        let edit = try #require(provider.calls.edit.first)
        #expect(edit.image == (try await fixture.store.read(heroID, range: nil)))
        #expect(edit.prompt.contains("reference image"))
        #expect(edit.safetyIdentifier == "hash-alice")
        let id = try #require(response["generation_id"] as? String)
        #expect(id != heroID)
        #expect(try await fixture.store.metadata(id)?.owner == "uid-alice")
    }

    @Test func illustrationHeroFromAnotherUserOrUnknownIsNotFound() async throws {
        let provider = ScriptedProvider()
        let fixture = TestFixture(provider: provider)
        defer { fixture.close() }
        let avatar = try object(try await fixture.service.avatarGeneration(body(Bodies.avatar), caller: TestFixture.alice))
        let heroID = try #require(avatar["generation_id"] as? String)
        let audio = try object(try await fixture.service.audioSynthesis(body(Bodies.audio()), caller: TestFixture.bob))
        let audioID = TestFixture.key(ofURL: try #require(audio["audio_url"] as? String))
        let before = provider.calls.generations
        for (id, caller) in [(heroID, TestFixture.bob), ("0123456789abcdef0123456789abcdef", TestFixture.alice),
                             ("../../etc/passwd", TestFixture.alice), (audioID, TestFixture.bob)] {
            let error = await expectFunctionError { () async throws(FunctionError) in
                try await fixture.service.sceneIllustration(body(Bodies.illustration(hero: id)), caller: caller)
            }
            #expect(error == .notFound(field: "hero_generation_id"))
            #expect(error?.message.contains(id) == false)
        }
        #expect(provider.calls.generations == before)
    }

    /// Uids are byte strings: a caller whose uid is canonically equivalent to the owner's (Swift's `String` `==`
    /// says equal) is another user.
    @Test func illustrationHeroOfACanonicallyEquivalentUidIsNotFound() async throws {
        let fixture = TestFixture(provider: ScriptedProvider())
        defer { fixture.close() }
        let owner = Caller(uid: "caf\u{E9}", safetyIdentifier: "hash-1"), twin = Caller(uid: "cafe\u{301}", safetyIdentifier: "hash-2")
        #expect(owner.uid == twin.uid)
        let avatar = try object(try await fixture.service.avatarGeneration(body(Bodies.avatar), caller: owner))
        let heroID = try #require(avatar["generation_id"] as? String)
        let error = await expectFunctionError { () async throws(FunctionError) in
            try await fixture.service.sceneIllustration(body(Bodies.illustration(hero: heroID)), caller: twin)
        }
        #expect(error == .notFound(field: "hero_generation_id"))
        _ = try object(try await fixture.service.sceneIllustration(body(Bodies.illustration(hero: heroID)), caller: owner))
    }

    @Test func offlineAnswersAreDeterministic() async throws {
        let provider = OfflineProvider()
        let chat = StructuredChatRequest(model: "m", system: "Write about 200 words in exactly 4 scenes.", user: "Hero: Mila",
                                         schemaName: "story", schemaJSON: StructuredSchemas.story, safetyIdentifier: "x")
        let first = try await provider.structuredChat(chat)
        #expect(try await provider.structuredChat(chat) == first)
        let story = try JSONDecoder().decode(StoryBody.self, from: Data(first.json))
        #expect(WordCounter.count(story.content) == 200)
        #expect(story.scenes.count == 4)
        let image = ImageRequest(model: "m", prompt: "p", size: "auto", quality: "auto", safetyIdentifier: "x")
        #expect(try await provider.generateImage(image) == (try await provider.generateImage(image)))
        #expect(try await provider.moderate(ModerationRequest(model: "m", input: "hello")).flagged == false)
        #expect(try await provider.moderate(ModerationRequest(model: "m", input: "a [[FLAG]] b")).flagged == true)
    }
}
