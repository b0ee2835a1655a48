#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// A scene as the app receives it and as the model returns it.
struct SceneBody: Codable, Equatable {
    var number: Int
    var content: String
    var visualizationPrompt: String

    enum CodingKeys: String, CodingKey {
        case number, content
        case visualizationPrompt = "visualization_prompt"
    }
}

/// The story as the model returns it (`StructuredSchemas.story`) and as the app receives it.
struct StoryBody: Codable, Equatable {
    var title: String
    var content: String
    var scenes: [SceneBody]
}

/// The scenes as the model returns them (`StructuredSchemas.scenes`) and as the app receives them.
struct ScenesBody: Codable, Equatable {
    var scenes: [SceneBody]
}

struct StoryGenerationResponse: Encodable {
    var story: StoryBody
    var storyID: String
    var wordCount: Int
    var estimatedDuration: Int

    enum CodingKeys: String, CodingKey {
        case story
        case storyID = "story_id"
        case wordCount = "word_count"
        case estimatedDuration = "estimated_duration"
    }
}

struct AudioSynthesisResponse: Encodable {
    var audioURL: String
    var duration: Double

    enum CodingKeys: String, CodingKey {
        case duration
        case audioURL = "audio_url"
    }
}

struct AvatarGenerationResponse: Encodable {
    var imageURL: String
    var generationID: String
    var revisedPrompt: String

    enum CodingKeys: String, CodingKey {
        case imageURL = "image_url"
        case generationID = "generation_id"
        case revisedPrompt = "revised_prompt"
    }
}

struct SceneIllustrationResponse: Encodable {
    var imageURL: String
    var generationID: String

    enum CodingKeys: String, CodingKey {
        case imageURL = "image_url"
        case generationID = "generation_id"
    }
}

enum ResponseEncoder {
    /// JSON bytes, slashes unescaped (`/media/<key>`), keys sorted (the same value always gives the same bytes).
    static func encode<Response: Encodable>(_ response: Response) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        // Encoding these plain structs of strings and numbers cannot fail.
        return (try? [UInt8](encoder.encode(response))) ?? Array("{}".utf8)
    }
}
