#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif
public import OpenAI

/// Deterministic, valid answers without a network: for dev mode without `OPENAI_API_KEY`, load tests, and the mock
/// OpenAI server. The same request always gets the same answer (the seed is a stable hash of its inputs), and every
/// call is cheap (well under a millisecond for typical sizes).
///
/// - Chat, schema `story`: a story JSON about the hero and event the prompt describes, `about N words` as the
///   prompt says (300 if it says nothing) in whole sentences, and `exactly K scenes` (4 by default). Schema
///   `scenes`: K scenes over the text after `STORY:` in the user message. Any other schema: an `upstream` error
///   (status 400).
/// - Speech: a soft tone (``OfflineTone``) lasting words / 150 × 60 / speed seconds.
/// - Images: a flat landscape PNG (``OfflinePicture``) of the size asked for (`auto`: 1024×1024); no revised prompt.
/// - Moderation: flags only text containing the test marker `[[flag]]` (any case), category `test-marker`.
public struct OfflineProvider: AIProvider {
    /// Text containing this is flagged by `moderate`, so tests and load tests can exercise refusals.
    public static let flagMarker = "[[flag]]"

    public init() {}

    public func structuredChat(_ request: StructuredChatRequest) async throws(AIError) -> StructuredChatResult {
        let prompt = request.system + "\n" + request.user
        var writer = OfflineStoryWriter(
            seed: StableHash.of(request.model, request.schemaName, request.system, request.user), facts: StoryFacts(prompt: request.user)
        )
        let scenes = min(100, max(1, PromptMarkers.sceneCount(in: prompt) ?? 4))
        let json: [UInt8]
        switch request.schemaName {
        case StructuredSchemas.storyName:
            let words = min(50_000, max(1, PromptMarkers.wordCount(in: prompt) ?? 300))
            json = ResponseEncoder.encode(writer.story(words: words, scenes: scenes))
        case StructuredSchemas.scenesName:
            let story: String
            if let range = request.user.firstRange(of: PromptMarkers.storyStart) {
                story = String(request.user[range.upperBound...])
            } else {
                story = request.user
            }
            let sentences = SentenceSplitter.sentences(story).map { String($0).trimmedWhitespace }.filter { !$0.isEmpty }
            json = ResponseEncoder.encode(ScenesBody(scenes: writer.scenes(from: sentences, count: scenes)))
        default:
            throw AIError(.upstream, "The offline provider has no answer for this schema.", status: 400)
        }
        return StructuredChatResult(json: json, promptTokens: prompt.utf8.count / 4, completionTokens: json.count / 4)
    }

    public func speech(_ request: SpeechRequest) async throws(AIError) -> [UInt8] {
        let speed = request.speed.isFinite && request.speed > 0 ? request.speed : 1
        return OfflineTone.speech(seconds: Self.speechSeconds(words: WordCounter.count(request.input), speed: speed))
    }

    /// The length of offline speech: words / 150 × 60 / speed seconds.
    public static func speechSeconds(words: Int, speed: Double) -> Double {
        Double(words) / FunctionLimits.wordsPerMinute * 60 / speed
    }

    public func generateImage(_ request: ImageRequest) async throws(AIError) -> ImageResult {
        let seed = StableHash.of(request.model, request.prompt, request.size, request.quality)
        return ImageResult(png: Self.picture(size: request.size, seed: seed), revisedPrompt: nil)
    }

    public func editImage(_ request: ImageEditRequest) async throws(AIError) -> ImageResult {
        var hash = StableHash()
        for part in [request.model, request.prompt, request.size, request.quality] { hash.combine(part) }
        hash.combine(bytes: request.image.prefix(4096))
        hash.combine(String(request.image.count))
        return ImageResult(png: Self.picture(size: request.size, seed: hash.value), revisedPrompt: nil)
    }

    private static func picture(size: String, seed: UInt64) -> [UInt8] {
        let (width, height) = OfflinePicture.size(size)
        return OfflinePicture(width: width, height: height, seed: seed).png()
    }

    public func moderate(_ request: ModerationRequest) async throws(AIError) -> ModerationResult {
        let flagged = request.input.lowercased().contains(Self.flagMarker)
        return ModerationResult(flagged: flagged, categories: flagged ? ["test-marker"] : [])
    }
}
