internal import Logging
internal import OpenAI

extension StoryFunctionsService {
    /// `extract-scenes`: one structured-output call splits `story_content` into scenes.
    ///
    /// The answer has exactly `min(target_scene_count, sentences in the story)` scenes, numbered 1…n: a story of
    /// three sentences cannot make ten scenes. Extra scenes from the model are dropped; fewer than asked is an
    /// invalid answer (502 `UPSTREAM_ERROR`). Response: `{scenes: [{number, content, visualization_prompt}]}`.
    public func extractScenes(_ body: [UInt8], caller: Caller) async throws(FunctionError) -> [UInt8] {
        let (story, target) = try Self.scenesInput(body)
        try await self.moderate(story, function: "extract-scenes")
        let sentences = SentenceSplitter.sentences(story).count { WordCounter.count(String($0)) > 0 }
        let count = min(target, max(1, sentences))
        let prompt = ScenesPrompt(story: story, sceneCount: count)
        let chat = StructuredChatRequest(
            model: self.models.text, system: prompt.system, user: prompt.user,
            schemaName: StructuredSchemas.scenesName, schemaJSON: StructuredSchemas.scenes,
            safetyIdentifier: caller.safetyIdentifier
        )
        let result = try await self.ai("scenes") { () async throws(AIError) in try await self.provider.structuredChat(chat) }
        self.countTokens(result, function: "extract-scenes")
        let answer = try self.decodeModelAnswer(ScenesBody.self, result.json)
        guard answer.scenes.count >= count else {
            throw .invalidUpstream("The model returned fewer scenes than asked for.")
        }
        let scenes = try self.checkedScenes(Array(answer.scenes.prefix(count)))
        self.logger.debug("Scenes extracted", metadata: ["scenes": .stringConvertible(scenes.count)])
        return ResponseEncoder.encode(ScenesBody(scenes: scenes))
    }

    static func scenesInput(_ body: [UInt8]) throws(FunctionError) -> (story: String, target: Int) {
        let request = try RequestDecoder.decode(ExtractScenesRequest.self, from: body)
        let story = try FieldRules.text(request.storyContent, "story_content", maximum: FunctionLimits.storyContent)
        return (story, try FieldRules.integer(request.targetSceneCount, "target_scene_count", in: FunctionLimits.sceneCount))
    }
}
