import OpenAI
import Synchronization

/// A tiny deterministic ``AIProvider`` for these tests. It remembers the last request of each kind, and
/// refuses (``AIError/Kind/contentPolicy``) any prompt, text or user message containing `REFUSE`.
final class CannedProvider: AIProvider {
    /// `{"title":"Canned","scenes":[]}`.
    static let chatJSON = Array(#"{"title":"Canned","scenes":[]}"#.utf8)

    /// One MPEG-1 Layer III frame header (`FF FB 90 64`: 128 kbit/s, 44.1 kHz, 417 bytes a frame), padded to a frame.
    static let mp3: [UInt8] = [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 413)

    /// A valid 1×1 RGBA PNG (one orange pixel), 70 bytes: signature, IHDR, IDAT (zlib), IEND.
    static let png: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
        0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4, 0x89, 0x00, 0x00, 0x00,
        0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xDF, 0xC0, 0xF0, 0x1F, 0x00, 0x06, 0x80, 0x02, 0x7F,
        0x10, 0x4C, 0x1B, 0xE1, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]

    struct Seen {
        var chat: StructuredChatRequest?
        var speech: SpeechRequest?
        var image: ImageRequest?
        var edit: ImageEditRequest?
        var moderation: ModerationRequest?
    }

    private let state = Mutex(Seen())

    /// The last request of each kind.
    var seen: Seen { self.state.withLock { $0 } }

    private static let refusal = AIError(.contentPolicy, "refused")

    func structuredChat(_ request: StructuredChatRequest) async throws(AIError) -> StructuredChatResult {
        self.state.withLock { $0.chat = request }
        if request.user.contains("REFUSE") { throw Self.refusal }
        return StructuredChatResult(json: Self.chatJSON, promptTokens: 12, completionTokens: 7)
    }

    func speech(_ request: SpeechRequest) async throws(AIError) -> [UInt8] {
        self.state.withLock { $0.speech = request }
        if request.input.contains("REFUSE") { throw Self.refusal }
        return Self.mp3
    }

    func generateImage(_ request: ImageRequest) async throws(AIError) -> ImageResult {
        self.state.withLock { $0.image = request }
        if request.prompt.contains("REFUSE") { throw Self.refusal }
        return ImageResult(png: Self.png, revisedPrompt: "revised: " + request.prompt)
    }

    func editImage(_ request: ImageEditRequest) async throws(AIError) -> ImageResult {
        self.state.withLock { $0.edit = request }
        if request.prompt.contains("REFUSE") { throw Self.refusal }
        return ImageResult(png: Self.png, revisedPrompt: nil)
    }

    func moderate(_ request: ModerationRequest) async throws(AIError) -> ModerationResult {
        self.state.withLock { $0.moderation = request }
        let flagged = request.input.contains("REFUSE")
        return ModerationResult(flagged: flagged, categories: flagged ? ["violence"] : [])
    }
}
