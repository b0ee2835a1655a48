/// What the AI functions need from a model provider: OpenAI over HTTP (`OpenAIClient`), or the offline
/// provider that answers deterministically without a network (`OfflineProvider`, in StoryFunctions).
///
/// Every method throws only `AIError`; the gateway maps it to HTTP in one place.
public protocol AIProvider: Sendable {
    /// A chat completion whose message content is a JSON object valid against `request.schemaJSON`
    /// (`response_format: {type: json_schema, json_schema: {name, strict: true, schema}}`).
    func structuredChat(_ request: StructuredChatRequest) async throws(AIError) -> StructuredChatResult
    /// Speech for `request.input`, as MP3 bytes (`audio/speech`, `response_format: mp3`).
    func speech(_ request: SpeechRequest) async throws(AIError) -> [UInt8]
    /// A new image (`images/generations`), as PNG bytes.
    func generateImage(_ request: ImageRequest) async throws(AIError) -> ImageResult
    /// An image made from a reference image (`images/edits`, multipart), as PNG bytes.
    func editImage(_ request: ImageEditRequest) async throws(AIError) -> ImageResult
    /// A moderation verdict for user-written text (`moderations`).
    func moderate(_ request: ModerationRequest) async throws(AIError) -> ModerationResult
}
