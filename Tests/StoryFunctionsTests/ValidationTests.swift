import Foundation
import OpenAI
@testable import StoryFunctions
import Testing

/// Bad bodies → 400 `INVALID_ARGUMENT` naming the field, and no provider call.
@Suite struct ValidationTests {
    enum Function: String, Sendable {
        case story, scenes, audio, avatar, illustration
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var function: Function
        var body: String
        /// The field the error must name; nil for body-level errors.
        var field: String?
        var testDescription: String { "\(function.rawValue) \(field ?? "<body>"): \(body.prefix(60))" }
    }

    /// `base` with the value at `path` replaced (`nil` removes it), as JSON text.
    static func with(_ base: [String: Any], _ path: [String], _ value: Any?) -> String {
        func set(_ object: [String: Any], _ path: ArraySlice<String>) -> [String: Any] {
            var object = object
            let key = path.first!
            if path.count == 1 {
                object[key] = value
            } else {
                object[key] = set(object[key] as? [String: Any] ?? [:], path.dropFirst())
            }
            return object
        }
        return String(decoding: try! JSONSerialization.data(withJSONObject: set(base, path[...])), as: UTF8.self)
    }

    static let cases: [Case] = {
        let story = Bodies.story(), custom = Bodies.story(custom: true)
        let scenes = Bodies.scenes, audio = Bodies.audio(), avatar = Bodies.avatar, illustration = Bodies.illustration()
        return [
            // Not JSON, or not an object.
            Case(function: .story, body: "{\"hero\": ", field: nil),
            Case(function: .scenes, body: "", field: nil),
            Case(function: .audio, body: "not json at all", field: nil),
            Case(function: .avatar, body: "[1, 2, 3]", field: nil),
            Case(function: .illustration, body: "\"a string\"", field: nil),
            // Missing.
            Case(function: .story, body: with(story, ["hero", "name"], nil), field: "hero.name"),
            Case(function: .story, body: with(story, ["hero"], nil), field: "hero"),
            Case(function: .story, body: with(story, ["target_duration"], nil), field: "target_duration"),
            Case(function: .story, body: with(custom, ["event", "data", "title"], nil), field: "event.data.title"),
            Case(function: .story, body: with(story, ["event", "data", "name"], nil), field: "event.data.name"),
            Case(function: .scenes, body: with(scenes, ["story_content"], nil), field: "story_content"),
            Case(function: .audio, body: with(audio, ["language"], nil), field: "language"),
            Case(function: .avatar, body: with(avatar, ["prompt"], nil), field: "prompt"),
            Case(function: .illustration, body: with(illustration, ["scene_number"], nil), field: "scene_number"),
            Case(function: .story, body: with(story, ["language"], NSNull()), field: "language"),
            // Ill-typed, and deeply wrong types.
            Case(function: .story, body: with(story, ["hero", "name"], 42), field: "hero.name"),
            Case(function: .story, body: with(story, ["hero"], "Mila"), field: "hero"),
            Case(function: .story, body: with(story, ["hero", "age"], "seven"), field: "hero.age"),
            Case(function: .story, body: with(story, ["target_duration"], "300"), field: "target_duration"),
            Case(function: .story, body: with(story, ["event", "data"], [1, 2]), field: "event.data"),
            Case(function: .story, body: with(custom, ["event", "data", "keywords"], ["kite", 3]), field: "event.data.keywords[1]"),
            Case(function: .story, body: with(custom, ["event", "data", "keywords"], "kite"), field: "event.data.keywords"),
            Case(function: .scenes, body: with(scenes, ["target_scene_count"], 2.5), field: "target_scene_count"),
            Case(function: .scenes, body: with(scenes, ["target_scene_count"], ["n": 3]), field: "target_scene_count"),
            Case(function: .audio, body: with(audio, ["speed"], true), field: "speed"),
            Case(function: .story, body: with(story, ["hero", "age"], 7.5), field: "hero.age"),
            Case(function: .illustration, body: with(illustration, ["scene_number"], 1.5), field: "scene_number"),
            Case(function: .illustration, body: with(illustration, ["scene_number"], "2"), field: "scene_number"),
            // Empty after trimming.
            Case(function: .story, body: with(story, ["hero", "name"], "   "), field: "hero.name"),
            Case(function: .story, body: with(custom, ["event", "data", "description"], "\n\t"), field: "event.data.description"),
            Case(function: .story, body: with(custom, ["event", "data", "keywords"], ["kite", " "]), field: "event.data.keywords[1]"),
            Case(function: .audio, body: with(audio, ["text"], ""), field: "text"),
            Case(function: .avatar, body: with(avatar, ["hero_id"], ""), field: "hero_id"),
            Case(function: .illustration, body: with(illustration, ["story_id"], " "), field: "story_id"),
            // Too long.
            Case(function: .story, body: with(story, ["hero", "name"], String(repeating: "a", count: 101)), field: "hero.name"),
            Case(function: .story, body: with(story, ["hero", "primary_trait"], String(repeating: "b", count: 201)), field: "hero.primary_trait"),
            Case(function: .avatar, body: with(avatar, ["prompt"], String(repeating: "c", count: 4001)), field: "prompt"),
            // Code points are counted, not user-perceived characters: one character of 4,001 code points is too long,
            // and so are 801 five-code-point emoji.
            Case(function: .avatar, body: with(avatar, ["prompt"], "c" + String(repeating: "\u{301}", count: 4000)), field: "prompt"),
            Case(function: .story, body: with(story, ["hero", "name"], String(repeating: "👨‍👩‍👧", count: 21)), field: "hero.name"),
            Case(function: .audio, body: with(audio, ["text"], String(repeating: "word ", count: 4001)), field: "text"),
            // Out of range.
            Case(function: .story, body: with(story, ["target_duration"], 29), field: "target_duration"),
            Case(function: .story, body: with(story, ["target_duration"], 1801), field: "target_duration"),
            Case(function: .story, body: with(story, ["hero", "age"], -1), field: "hero.age"),
            Case(function: .scenes, body: with(scenes, ["target_scene_count"], 0), field: "target_scene_count"),
            Case(function: .scenes, body: with(scenes, ["target_scene_count"], 21), field: "target_scene_count"),
            Case(function: .audio, body: with(audio, ["speed"], 0.2), field: "speed"),
            Case(function: .audio, body: with(audio, ["speed"], 4.5), field: "speed"),
            Case(function: .illustration, body: with(illustration, ["scene_number"], 0), field: "scene_number"),
            // Unknown enum values.
            Case(function: .story, body: with(story, ["language"], "xx"), field: "language"),
            Case(function: .story, body: with(story, ["language"], "ja"), field: "language"),
            Case(function: .story, body: with(story, ["event", "type"], "surprise"), field: "event.type"),
            Case(function: .audio, body: with(audio, ["voice"], "robot"), field: "voice"),
            Case(function: .avatar, body: with(avatar, ["style"], "gothic"), field: "style"),
            Case(function: .avatar, body: with(avatar, ["quality"], "ultra"), field: "quality"),
            Case(function: .avatar, body: with(avatar, ["size"], "512x512"), field: "size"),
            Case(function: .illustration, body: with(illustration, ["style"], "sketch"), field: "style"),
        ]
    }()

    @Test(arguments: cases)
    func badBodyIsRefusedNamingTheField(_ testCase: Case) async throws {
        let provider = ScriptedProvider()
        let fixture = TestFixture(provider: provider)
        defer { fixture.close() }
        let bytes = Array(testCase.body.utf8)
        let service = fixture.service
        let error = await expectFunctionError { () async throws(FunctionError) in
            switch testCase.function {
            case .story: try await service.storyGeneration(bytes, caller: TestFixture.alice)
            case .scenes: try await service.extractScenes(bytes, caller: TestFixture.alice)
            case .audio: try await service.audioSynthesis(bytes, caller: TestFixture.alice)
            case .avatar: try await service.avatarGeneration(bytes, caller: TestFixture.alice)
            case .illustration: try await service.sceneIllustration(bytes, caller: TestFixture.alice)
            }
        }
        #expect(error?.status == 400)
        #expect(error?.code == "INVALID_ARGUMENT")
        #expect(error?.field == testCase.field)
        if let field = testCase.field {
            #expect(error?.message.contains("`\(field)`") == true, "\(error?.message ?? "")")
        }
        #expect(provider.calls.moderation.isEmpty)
        #expect(provider.calls.generations == 0)
    }

    /// `check` (a job's creation) refuses what the call refuses, with the same error, before any I/O.
    @Test(arguments: cases)
    func checkRefusesAsTheCallDoes(_ testCase: Case) async throws {
        let function: StoryFunctionsService.Function = switch testCase.function {
        case .story: .storyGeneration
        case .scenes: .extractScenes
        case .audio: .audioSynthesis
        case .avatar: .avatarGeneration
        case .illustration: .sceneIllustration
        }
        let error = await expectFunctionError { () async throws(FunctionError) in
            try StoryFunctionsService.check(Array(testCase.body.utf8), for: function)
            return []
        }
        #expect(error?.code == "INVALID_ARGUMENT")
        #expect(error?.field == testCase.field)
    }

    @Test func invalidJSONHasTheDocumentedMessage() async {
        let fixture = TestFixture()
        defer { fixture.close() }
        let error = await expectFunctionError { () async throws(FunctionError) in
            try await fixture.service.storyGeneration(body("{oops"), caller: TestFixture.alice)
        }
        #expect(error == .invalidJSON)
        #expect(error?.message == "The request body is not valid JSON.")
    }

    @Test func unknownFieldsAreIgnoredAndEnumsAreCaseInsensitive() async throws {
        let fixture = TestFixture()
        defer { fixture.close() }
        var request = Bodies.avatar
        request["extra"] = ["nested": true]
        request["style"] = "Natural"
        request["size"] = "AUTO"
        let response = try object(try await fixture.service.avatarGeneration(body(request), caller: TestFixture.alice))
        #expect(response["generation_id"] is String)
        var story = Bodies.story()
        story["language"] = "PT_br"
        story["unknown"] = [1, 2]
        _ = try await fixture.service.storyGeneration(body(story), caller: TestFixture.alice)
    }

    @Test func oversizedBodyIsPayloadTooLarge() async {
        let fixture = TestFixture()
        defer { fixture.close() }
        let huge = [UInt8](repeating: 0x20, count: StoryFunctionsService.maximumBodyBytes + 1)
        let error = await expectFunctionError { () async throws(FunctionError) in
            try await fixture.service.audioSynthesis(huge, caller: TestFixture.alice)
        }
        #expect(error?.status == 413)
        #expect(error?.code == "PAYLOAD_TOO_LARGE")
    }

    @Test func theDocumentedVoicesAndLanguagesAreAccepted() {
        #expect(StoryFunctionsService.supportedVoices.count == 13)
        #expect(StoryFunctionsService.supportedLanguages.contains("en"))
        #expect(StoryLanguage.normalize("en-US") == "en")
        #expect(StoryLanguage.normalize("zz") == nil)
        for tag in ["pt-BR", "pt_BR", "EN", "en-Latn-US", "en_US_POSIX", "es-419"] { #expect(StoryLanguage.normalize(tag) != nil, "\(tag)") }
        for tag in ["-en", "en-", "en--x", "en-US-", "_en", "en US", "en-toolongsubtag", "en-é", ""] { #expect(StoryLanguage.normalize(tag) == nil, "\(tag)") }
        #expect(RequestDecoder.path([]) == "")
    }
}
