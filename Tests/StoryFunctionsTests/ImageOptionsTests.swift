import OpenAI
@testable import StoryFunctions
import Testing

/// DALL·E 3 values mapped to what the GPT image model takes.
@Suite struct ImageOptionsTests {
    @Test(arguments: [
        ("standard", "medium"), ("hd", "high"), ("low", "low"), ("medium", "medium"), ("high", "high"), ("auto", "auto"),
    ])
    func quality(app: String, model: String) async throws {
        let request = try await Self.avatarRequest(["quality": app])
        #expect(request.quality == model)
    }

    @Test(arguments: [
        ("1024x1024", "1024x1024"), ("1792x1024", "1536x1024"), ("1024x1792", "1024x1536"),
        ("1536x1024", "1536x1024"), ("1024x1536", "1024x1536"), ("auto", "auto"),
    ])
    func size(app: String, model: String) async throws {
        let request = try await Self.avatarRequest(["size": app])
        #expect(request.size == model)
    }

    @Test func styleBecomesASentenceAndSafetyIsAlwaysThere() async throws {
        let vivid = try await Self.avatarRequest(["style": "vivid"])
        #expect(vivid.prompt.contains("Style: vivid"))
        let natural = try await Self.avatarRequest(["style": "natural"])
        #expect(natural.prompt.contains("Style: natural"))
        for changes in [["style": "none"], [:]] {
            let plain = try await Self.avatarRequest(changes)
            #expect(!plain.prompt.contains("Style:"))
        }
        #expect(vivid.prompt.contains(ChildSafety.imageSentence))
        #expect(vivid.model == "gpt-image-2.5-flare")
        #expect(vivid.safetyIdentifier == "hash-alice")
    }

    @Test func defaultsAreStandardSquare() async throws {
        let request = try await Self.avatarRequest([:])
        #expect(request.quality == "medium")
        #expect(request.size == "1024x1024")
    }

    @Test func illustrationMapsToo() async throws {
        let provider = ScriptedProvider()
        let fixture = TestFixture(provider: provider)
        defer { fixture.close() }
        var request = Bodies.illustration()
        request["quality"] = "hd"
        request["size"] = "1024x1792"
        _ = try await fixture.service.sceneIllustration(body(request), caller: TestFixture.alice)
        let sent = try #require(provider.calls.generate.first)
        #expect(sent.quality == "high")
        #expect(sent.size == "1024x1536")
        #expect(sent.prompt.contains("Style: natural"))
        #expect(sent.prompt.contains(ChildSafety.imageSentence))
    }

    /// The image request an avatar body without style, quality and size, plus `changes`, sends to the provider.
    static func avatarRequest(_ changes: [String: String]) async throws -> ImageRequest {
        let provider = ScriptedProvider()
        let fixture = TestFixture(provider: provider)
        defer { fixture.close() }
        var request = Bodies.avatar
        request["style"] = nil
        request["quality"] = nil
        request["size"] = nil
        for (key, value) in changes { request[key] = value }
        _ = try await fixture.service.avatarGeneration(body(request), caller: TestFixture.alice)
        return try #require(provider.calls.generate.first)
    }
}
