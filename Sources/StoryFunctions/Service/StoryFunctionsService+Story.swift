internal import Logging
internal import OpenAI

extension StoryFunctionsService {
    /// `story-generation`: one structured-output call writes the story and its scenes in the requested language,
    /// about `target_duration / 60 × 150` words long, with 3 to 6 scenes.
    ///
    /// Response: `{story: {title, content, scenes: [{number, content, visualization_prompt}]}, story_id,
    /// word_count, estimated_duration}`; `word_count` is counted from `content`, `estimated_duration` is
    /// `word_count / 150 × 60` seconds rounded, scenes are numbered 1…n, `story_id` is a fresh UUID.
    public func storyGeneration(_ body: [UInt8], caller: Caller) async throws(FunctionError) -> [UInt8] {
        let request = try ValidStoryRequest(try RequestDecoder.decode(StoryGenerationRequest.self, from: body))
        try await self.moderate(request.userWrittenText, function: "story-generation")
        let prompt = StoryPrompt(
            hero: request.hero, event: request.event, language: request.language, targetDuration: request.targetDuration
        )
        let chat = StructuredChatRequest(
            model: self.models.text, system: prompt.system, user: prompt.user,
            schemaName: StructuredSchemas.storyName, schemaJSON: StructuredSchemas.story,
            safetyIdentifier: caller.safetyIdentifier
        )
        let result = try await self.ai("story") { () async throws(AIError) in try await self.provider.structuredChat(chat) }
        self.countTokens(result, function: "story-generation")
        var story = try self.decodeModelAnswer(StoryBody.self, result.json)
        story.title = story.title.trimmedWhitespace
        story.content = story.content.trimmedWhitespace
        guard !story.title.isEmpty, !story.content.isEmpty else {
            throw .invalidUpstream("The model's story has no title or no content.")
        }
        story.scenes = try self.checkedScenes(story.scenes)
        let words = WordCounter.count(story.content)
        let response = StoryGenerationResponse(
            story: story, storyID: StoryID.make(), wordCount: words,
            estimatedDuration: Int((Double(words) / FunctionLimits.wordsPerMinute * 60).rounded())
        )
        self.logger.debug("Story generated", metadata: ["words": .stringConvertible(words), "scenes": .stringConvertible(story.scenes.count)])
        return ResponseEncoder.encode(response)
    }

    /// Scenes with content and a visualization prompt, renumbered 1…n; none at all is an invalid answer.
    func checkedScenes(_ scenes: [SceneBody]) throws(FunctionError) -> [SceneBody] {
        guard !scenes.isEmpty else { throw .invalidUpstream("The model's answer has no scenes.") }
        var result: [SceneBody] = []
        for (index, scene) in scenes.enumerated() {
            let content = scene.content.trimmedWhitespace
            let visualization = scene.visualizationPrompt.trimmedWhitespace
            guard !content.isEmpty, !visualization.isEmpty else { throw .invalidUpstream("A scene in the model's answer is empty.") }
            result.append(SceneBody(number: index + 1, content: content, visualizationPrompt: visualization))
        }
        return result
    }
}

/// Story ids: fresh random UUIDs (version 4), lowercase.
enum StoryID {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}
