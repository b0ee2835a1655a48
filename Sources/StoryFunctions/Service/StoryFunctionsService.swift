public import CoreMetrics
public import Logging
public import OpenAI

/// The five AI functions the app calls. Each takes the raw JSON request body and returns the JSON response body
/// (snake_case), or throws a `FunctionError` the gateway turns into an HTTP answer.
///
/// Every handler decodes strictly (unknown fields are ignored), validates against `FunctionLimits`, sends
/// user-written text to moderation before any generation, and puts a child-safety instruction in every prompt.
/// Media goes to the `MediaStore`, owned by the caller's uid, and is answered as `/media/<key>`.
public final class StoryFunctionsService: Sendable {
    let provider: any AIProvider
    let media: any MediaStore
    let models: AIModels
    let logger: Logger
    let metricsFactory: any MetricsFactory

    /// The request body limit: 256 KiB (`story_content` may hold 50,000 characters of a non-Latin script).
    /// The gateway answers 413 above it; the handlers check it too.
    public static let maximumBodyBytes = 262_144

    /// The ISO 639-1 codes a story or audio can be in (see `StoryLanguage`).
    public static let supportedLanguages: [String] = StoryLanguage.codes

    /// The voices `audio-synthesis` accepts (the speech endpoint's built-in voices).
    public static let supportedVoices: [String] = AudioSynthesisRequest.voices

    /// Speech calls in flight at once for one long text.
    static let speechConcurrency = 3

    /// - Parameter metricsFactory: where OpenAI token use is counted: `storygate_openai_tokens_total{function, type}`.
    public init(
        provider: any AIProvider, media: any MediaStore, models: AIModels = .init(), logger: Logger,
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.provider = provider
        self.media = media
        self.models = models
        self.logger = logger
        self.metricsFactory = metricsFactory
    }

    /// The URL path the gateway serves a media key at.
    public static func mediaPath(_ key: String) -> String { "/media/\(key)" }

    // MARK: Shared steps

    /// Runs a provider call, turning its `AIError` into a `FunctionError`.
    func ai<Result>(_ operation: String, _ call: () async throws(AIError) -> Result) async throws(FunctionError) -> Result {
        do {
            return try await call()
        } catch {
            self.logger.warning("AI provider call failed", metadata: ["operation": "\(operation)", "kind": "\(error.kind.rawValue)"])
            throw FunctionError(ai: error)
        }
    }

    /// Counts the tokens a chat call used, by function (`prompt` and `completion`).
    func countTokens(_ result: StructuredChatResult, function: String) {
        for (type, count) in [("prompt", result.promptTokens), ("completion", result.completionTokens)] where count > 0 {
            Counter(label: "storygate_openai_tokens_total", dimensions: [("function", function), ("type", type)], factory: self.metricsFactory)
                .increment(by: count)
        }
    }

    /// Refuses user-written text that moderation flags (400 `CONTENT_POLICY_VIOLATION`, the text never echoed).
    func moderate(_ text: String, function: String) async throws(FunctionError) {
        let request = ModerationRequest(model: self.models.moderation, input: text)
        let result = try await self.ai("moderation") { () async throws(AIError) in try await self.provider.moderate(request) }
        if result.flagged {
            self.logger.notice("Moderation refused user text", metadata: [
                "function": "\(function)", "categories": "\(result.categories.joined(separator: ","))",
            ])
            throw .contentPolicy()
        }
    }

    func store(_ bytes: [UInt8], contentType: String, kind: MediaKind, caller: Caller) async throws(FunctionError) -> MediaObject {
        do {
            return try await self.media.put(bytes, contentType: contentType, owner: caller.uid, kind: kind)
        } catch let error as FunctionError {
            throw error
        } catch {
            self.logger.error("Media store failed", metadata: ["content_type": "\(contentType)"])
            throw .storage
        }
    }

    /// Decodes the model's JSON answer into `type`, or 502 `UPSTREAM_ERROR` (`ai.kind == .invalidResponse`).
    func decodeModelAnswer<Answer: Decodable>(_ type: Answer.Type, _ json: [UInt8]) throws(FunctionError) -> Answer {
        do {
            return try RequestDecoder.decodeJSON(type, from: json)
        } catch {
            self.logger.warning("The model's answer did not match the schema", metadata: ["bytes": .stringConvertible(json.count)])
            throw .invalidUpstream("The model's answer did not match the expected JSON shape.")
        }
    }
}
