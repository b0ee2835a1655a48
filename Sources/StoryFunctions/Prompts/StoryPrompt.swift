/// The structured-output call that writes a story with its scenes.
struct StoryPrompt {
    var hero: ValidStoryRequest.Hero
    var event: ValidStoryRequest.Event
    var language: String
    var targetDuration: Double

    /// About 150 spoken words a minute.
    var targetWords: Int { max(1, Int((self.targetDuration / 60 * FunctionLimits.wordsPerMinute).rounded())) }
    /// One scene per two minutes, 3 to 6.
    var sceneCount: Int { min(6, max(3, Int((self.targetDuration / 120).rounded(.up)))) }

    var system: String {
        let language = StoryLanguage.name(of: self.language)
        return """
            You write original bedtime stories for children, to be read aloud. Write the story in \(language) \
            (title, content and scene content in \(language); visualization prompts in English). \
            Return JSON: `title`; `content`, the whole story as plain text in paragraphs, \(PromptMarkers.words(self.targetWords)) \
            long; `scenes`, \(PromptMarkers.scenes(self.sceneCount)) in story order, numbered from 1, each with `content` \
            (the passage of the story it covers, copied from the content) and `visualization_prompt` (what an \
            illustrator should draw: setting, the hero's look, action and mood; no text in the picture). \
            The hero is the main character; the story has a clear beginning, middle and a happy, calm ending.

            \(ChildSafety.systemInstruction)
            """
    }

    var user: String {
        var lines = ["Hero:", "- name: \(hero.name)", "- primary trait: \(hero.primaryTrait)",
                     "- secondary trait: \(hero.secondaryTrait)", "- appearance: \(hero.appearance)",
                     "- special ability: \(hero.specialAbility)"]
        if let age = hero.age { lines.append("- age: \(age)") }
        switch self.event {
        case .builtIn(let name):
            lines.append("Event: \(name)")
        case .custom(let custom):
            lines.append("Event (written by the family):")
            lines.append("- title: \(custom.title)")
            lines.append("- description: \(custom.description)")
            if let seed = custom.promptSeed { lines.append("- story idea: \(seed)") }
            if let tone = custom.tone { lines.append("- tone: \(tone)") }
            if let ageRange = custom.ageRange { lines.append("- listener age range: \(ageRange)") }
            if !custom.keywords.isEmpty { lines.append("- keywords: \(custom.keywords.joined(separator: ", "))") }
        }
        let minutes = (self.targetDuration / 60 * 10).rounded() / 10
        lines.append("Length: \(PromptMarkers.words(self.targetWords)) (about \(minutes) minutes read aloud).")
        lines.append("Scenes: \(PromptMarkers.scenes(self.sceneCount)).")
        return lines.joined(separator: "\n")
    }
}
