import OpenAI
import StoryFunctions
import Synchronization

/// A test double of `AIProvider`: answers like `OfflineProvider` unless a step is scripted, and records every call.
final class ScriptedProvider: AIProvider {
    struct Calls {
        var chat: [StructuredChatRequest] = []
        var speech: [SpeechRequest] = []
        var generate: [ImageRequest] = []
        var edit: [ImageEditRequest] = []
        var moderation: [ModerationRequest] = []

        var generations: Int { chat.count + speech.count + generate.count + edit.count }
    }

    struct Script: Sendable {
        var chat: (@Sendable (StructuredChatRequest) throws(AIError) -> StructuredChatResult)?
        var speech: (@Sendable (SpeechRequest) throws(AIError) -> [UInt8])?
        var image: (@Sendable () throws(AIError) -> ImageResult)?
        var moderation: (@Sendable (ModerationRequest) throws(AIError) -> ModerationResult)?
    }

    private let offline = OfflineProvider()
    private let script: Script
    private let state = Mutex(Calls())

    init(_ script: Script = Script()) { self.script = script }

    var calls: Calls { self.state.withLock { $0 } }

    func structuredChat(_ request: StructuredChatRequest) async throws(AIError) -> StructuredChatResult {
        self.state.withLock { $0.chat.append(request) }
        if let chat = self.script.chat { return try chat(request) }
        return try await self.offline.structuredChat(request)
    }

    func speech(_ request: SpeechRequest) async throws(AIError) -> [UInt8] {
        self.state.withLock { $0.speech.append(request) }
        if let speech = self.script.speech { return try speech(request) }
        return try await self.offline.speech(request)
    }

    func generateImage(_ request: ImageRequest) async throws(AIError) -> ImageResult {
        self.state.withLock { $0.generate.append(request) }
        if let image = self.script.image { return try image() }
        return try await self.offline.generateImage(request)
    }

    func editImage(_ request: ImageEditRequest) async throws(AIError) -> ImageResult {
        self.state.withLock { $0.edit.append(request) }
        if let image = self.script.image { return try image() }
        return try await self.offline.editImage(request)
    }

    func moderate(_ request: ModerationRequest) async throws(AIError) -> ModerationResult {
        self.state.withLock { $0.moderation.append(request) }
        if let moderation = self.script.moderation { return try moderation(request) }
        return try await self.offline.moderate(request)
    }
}
