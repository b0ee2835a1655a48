/// The structured-output call that splits a story into illustrated scenes.
struct ScenesPrompt {
    var story: String
    var sceneCount: Int

    var system: String {
        """
        You split a children's story into scenes for a picture book. Return JSON with `scenes`: \
        \(PromptMarkers.scenes(self.sceneCount)) in story order, numbered from 1, covering the whole story. Each scene \
        has `content` (the passage of the story it covers, in the story's language, copied from the story) and \
        `visualization_prompt` (in English, what an illustrator should draw: setting, characters, action and mood; \
        no text in the picture).

        \(ChildSafety.systemInstruction)
        """
    }

    var user: String {
        "Split this story into \(PromptMarkers.scenes(self.sceneCount)).\n\n\(PromptMarkers.storyStart)\(self.story)"
    }
}
