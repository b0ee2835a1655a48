import Foundation
import Logging
@testable import StoryFunctions
import Testing

/// The request schemas of openapi.yaml mirror the functions' validation: driven by the document, each example is
/// accepted, and for every field of every example the document's rules are tried against the real handlers (the
/// offline provider behind them): a required field removed, an optional one removed or null, a wrong type, the
/// length at and over `maxLength`, a blank string where `pattern: '\S'` forbids one, every `enum` value and one
/// outside it, each number at and beyond `minimum`/`maximum`, a fraction for an `integer`, `maxItems` and one more.
/// A refusal must be 400 `INVALID_ARGUMENT` naming the field; an acceptance is any answer but that.
@Suite struct OpenAPIRequestSchemaTests {
    typealias Function = @Sendable (StoryFunctionsService, [UInt8], Caller) async throws(FunctionError) -> [UInt8]

    static let functions: [String: Function] = [
        "/functions/v1/story-generation": { service, body, caller throws(FunctionError) in try await service.storyGeneration(body, caller: caller) },
        "/functions/v1/extract-scenes": { service, body, caller throws(FunctionError) in try await service.extractScenes(body, caller: caller) },
        "/functions/v1/audio-synthesis": { service, body, caller throws(FunctionError) in try await service.audioSynthesis(body, caller: caller) },
        "/functions/v1/avatar-generation": { service, body, caller throws(FunctionError) in try await service.avatarGeneration(body, caller: caller) },
        "/functions/v1/scene-illustration": { service, body, caller throws(FunctionError) in try await service.sceneIllustration(body, caller: caller) },
    ]

    /// Examples beyond the document's, for fields its examples leave out: a `hero_generation_id` that names no
    /// avatar (404 is past validation, so it counts as accepted here; the document's example stays a 200).
    static func extraExamples(_ path: String) -> [[String: Any]] {
        switch path {
        case "/functions/v1/scene-illustration":
            [["story_id": "story-1", "scene_number": 2, "prompt": "The hero waves", "hero_generation_id": "0123456789abcdef0123456789abcdef"]]
        default:
            []
        }
    }

    enum Expectation: Equatable, CustomStringConvertible {
        case accepted
        case refused(field: String)

        var description: String {
            switch self {
            case .accepted: "accepted"
            case .refused(let field): "400 INVALID_ARGUMENT for `\(field)`"
            }
        }
    }

    struct Probe {
        let label: String
        let body: Any
        let expectation: Expectation
    }

    let document: OpenAPIDescription

    init() throws {
        self.document = try OpenAPIDescription()
    }

    func requestSchema(_ path: String) -> YAMLValue {
        self.document.resolve(self.document.root["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"])
    }

    /// An object schema for `value`: itself, or the `oneOf` variant whose `type` enum holds the value's `type`.
    func objectSchema(_ schema: YAMLValue, for value: Any) -> YAMLValue {
        let schema = self.document.resolve(schema)
        guard schema["oneOf"].exists else { return schema }
        let type = (value as? [String: Any])?["type"] as? String
        return schema["oneOf"].array.map { self.document.resolve($0) }.first {
            $0["properties"]["type"]["enum"].strings.contains(type ?? "?")
        } ?? schema
    }

    /// The probes for one field (at `path`, holding `value`, described by `schema`) and, for objects and arrays,
    /// for what is inside.
    func probes(_ example: Any, path: [JSONStep], value: Any, schema: YAMLValue, required: Bool) -> [Probe] {
        let field = JSONStep.fieldPath(path)
        let refused = Expectation.refused(field: field)
        var probes: [Probe] = []
        func probe(_ label: String, _ newValue: Any?, _ expectation: Expectation) {
            probes.append(Probe(label: "\(field) \(label)", body: JSONEdit.setting(example, at: path, to: newValue), expectation: expectation))
        }
        let schema = self.objectSchema(schema, for: value)
        let types = OpenAPIDescription.types(schema)

        if case .key = path.last {
            probe("removed", nil, required ? refused : .accepted)
        }
        if types.contains("null") { probe("null", NSNull(), .accepted) }
        if types.contains("string") || types.contains("object") || types.contains("array") || schema["oneOf"].exists {
            probe("as a number", 12345, refused)
        } else if types.contains("number") || types.contains("integer") {
            probe("as a string", "12", refused)
        }

        let listed = schema["enum"].array.compactMap(\.string)
        for allowed in listed { probe("= \(allowed)", allowed, .accepted) }
        if !listed.isEmpty { probe("outside the enum", "not-a-listed-value", refused) }

        if let maximum = schema["maxLength"].int {
            probe("at maxLength", String(repeating: "a", count: maximum), .accepted)
            probe("over maxLength", String(repeating: "a", count: maximum + 1), refused)
        }
        if types.contains("string"), listed.isEmpty {
            let blank = schema["pattern"].string == #"\S"#
            probe("blank", "   ", blank ? refused : .accepted)
            probe("empty", "", blank ? refused : .accepted)
        }

        let isInteger = types.contains("integer")
        if let minimum = schema["minimum"].double {
            probe("at minimum", isInteger ? Int(minimum) as Any : minimum, .accepted)
            probe("under minimum", isInteger ? Int(minimum) - 1 as Any : minimum - 0.01, refused)
            if isInteger { probe("fractional", minimum + 0.5, refused) }
        }
        if let maximum = schema["maximum"].double {
            probe("at maximum", isInteger ? Int(maximum) as Any : maximum, .accepted)
            probe("over maximum", isInteger ? Int(maximum) + 1 as Any : maximum + 0.01, refused)
        }

        if let object = value as? [String: Any] {
            let required = Set(schema["required"].strings)
            for key in object.keys.sorted() where schema["properties"][key].exists {
                probes += self.probes(example, path: path + [.key(key)], value: object[key]!, schema: schema["properties"][key], required: required.contains(key))
            }
        }
        if let items = value as? [Any], let first = items.first {
            if let maximum = schema["maxItems"].int {
                probe("with maxItems", Array(repeating: first, count: maximum), .accepted)
                probe("over maxItems", Array(repeating: first, count: maximum + 1), refused)
            }
            probes += self.probes(example, path: path + [.index(0)], value: first, schema: schema["items"], required: true)
        }
        return probes
    }

    @Test(arguments: Self.functions.keys.sorted())
    func theRequestSchemaMirrorsTheValidation(_ path: String) async throws {
        let function = try #require(Self.functions[path])
        let schema = self.requestSchema(path)
        let examples = schema["examples"].array.map(\.json) + Self.extraExamples(path)
        #expect(!examples.isEmpty, "\(path) has no request example")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storygate-schema-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let service = StoryFunctionsService(
            provider: OfflineProvider(), media: FileMediaStore(directory: directory),
            logger: Logger(label: "OpenAPIRequestSchemaTests", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let caller = Caller(uid: "schema-probe", safetyIdentifier: "schema-probe-hash")

        var probes: [Probe] = []
        var covered: Set<String> = []
        for (index, example) in examples.enumerated() {
            probes.append(Probe(label: "example \(index)", body: example, expectation: .accepted))
            probes += self.probes(example, path: [], value: example, schema: schema, required: true)
            covered.formUnion((example as? [String: Any] ?? [:]).keys)
        }
        #expect(Set(schema["properties"].keys) == covered, "\(path): fields no example exercises")
        probes.append(Probe(label: "not JSON", body: "not json", expectation: .refused(field: "")))
        probes.append(Probe(label: "an array", body: [Any](), expectation: .refused(field: "")))

        for probe in probes {
            let bytes = probe.label == "not JSON" ? Array("{not json".utf8) : JSONEdit.bytes(probe.body)
            let outcome: Expectation
            do {
                _ = try await function(service, bytes, caller)
                outcome = .accepted
            } catch where error.code == "INVALID_ARGUMENT" {
                outcome = .refused(field: error.field ?? "")
            } catch {
                outcome = .accepted
            }
            #expect(outcome == probe.expectation, "\(path) \(probe.label): \(outcome), the document says \(probe.expectation)")
        }
    }

    /// The enums are the functions' own lists, whole (the probes above show each listed value is accepted).
    @Test func enumsAreTheFunctionsLists() {
        let schemas = self.document.root["components"]["schemas"]
        #expect(schemas["Language"]["enum"].strings == StoryFunctionsService.supportedLanguages)
        #expect(schemas["AudioSynthesisRequest"]["properties"]["voice"]["enum"].strings == StoryFunctionsService.supportedVoices)
        #expect(schemas["ImageStyle"]["enum"].strings == ImageOptions.styles)
        #expect(schemas["ImageQuality"]["enum"].strings == ImageOptions.qualities)
        #expect(schemas["ImageSize"]["enum"].strings == ImageOptions.sizes)
    }

    /// The bounds are `FunctionLimits`' (the probes show each bound is where the handlers put it).
    @Test func boundsAreFunctionLimits() {
        let schemas = self.document.root["components"]["schemas"]
        let hero = schemas["Hero"]["properties"]
        #expect(hero["name"]["maxLength"].int == FunctionLimits.heroName)
        #expect(hero["primary_trait"]["maxLength"].int == FunctionLimits.trait)
        #expect(hero["appearance"]["maxLength"].int == FunctionLimits.appearance)
        #expect(hero["age"]["minimum"].int == FunctionLimits.heroAge.lowerBound && hero["age"]["maximum"].int == FunctionLimits.heroAge.upperBound)
        let custom = schemas["CustomEvent"]["properties"]["data"]["properties"]
        #expect(custom["description"]["maxLength"].int == FunctionLimits.eventDescription)
        #expect(custom["prompt_seed"]["maxLength"].int == FunctionLimits.promptSeed)
        #expect(custom["keywords"]["maxItems"].int == FunctionLimits.keywordCount)
        #expect(custom["keywords"]["items"]["maxLength"].int == FunctionLimits.keyword)
        let story = schemas["StoryGenerationRequest"]["properties"]
        #expect(story["target_duration"]["minimum"].double == FunctionLimits.targetDuration.lowerBound)
        #expect(story["target_duration"]["maximum"].double == FunctionLimits.targetDuration.upperBound)
        #expect(schemas["ExtractScenesRequest"]["properties"]["story_content"]["maxLength"].int == FunctionLimits.storyContent)
        #expect(schemas["ExtractScenesRequest"]["properties"]["target_scene_count"]["maximum"].int == FunctionLimits.sceneCount.upperBound)
        #expect(schemas["AudioSynthesisRequest"]["properties"]["text"]["maxLength"].int == FunctionLimits.audioText)
        #expect(schemas["AudioSynthesisRequest"]["properties"]["speed"]["maximum"].double == FunctionLimits.speed.upperBound)
        #expect(schemas["AvatarGenerationRequest"]["properties"]["prompt"]["maxLength"].int == FunctionLimits.prompt)
        #expect(schemas["SceneIllustrationRequest"]["properties"]["scene_number"]["maximum"].int == FunctionLimits.sceneNumber.upperBound)
        #expect(schemas["SceneIllustrationRequest"]["properties"]["story_id"]["maxLength"].int == FunctionLimits.identifier)
    }
}
