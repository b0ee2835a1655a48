/// Deterministic stand-in stories and scenes for the offline provider: plain English sentences about the hero the
/// prompt describes (name, traits, look, ability) and its event, of exactly the requested number of words, every
/// sentence whole.
struct OfflineStoryWriter {
    private var random: SeededRandom
    private let facts: StoryFacts

    init(seed: UInt64, facts: StoryFacts = StoryFacts()) {
        self.random = SeededRandom(seed: seed)
        self.facts = facts
    }

    private static let objects = ["a glowing lantern", "a basket of apples", "a map of the stars", "a warm blanket",
                                  "a tiny silver key", "a feather as light as air", "a shell that hummed a song", "a little wooden boat"]
    private static let places = ["in the quiet forest", "under the soft blue sky", "by the sleepy river", "on the hill behind the house",
                                 "at the edge of the meadow", "beside the old stone wall"]
    private static let titleWords = ["Lantern", "Moon", "River", "Forest", "Rainbow", "Star", "Meadow", "Cloud"]
    /// Whole sentences of exactly 1 to 6 words, to end on the exact count.
    private static let closings = ["Goodnight.", "Sleep tight.", "Everyone slept soundly.", "The stars shone softly.",
                                   "And all was calm again.", "The night was quiet and kind."]

    /// A title and exactly `words` words of whole sentences (at least one), in paragraphs of five sentences.
    mutating func story(words: Int, scenes: Int) -> StoryBody {
        let sentences = self.sentences(words: max(1, words))
        let title = "\(self.facts.name) and the \(Self.titleWords.randomElement(using: &self.random)!)"
        return StoryBody(title: Self.capitalized(title), content: self.paragraphs(sentences), scenes: self.scenes(from: sentences, count: scenes))
    }

    /// `count` scenes covering `sentences` in order (sentences are reused when there are fewer than scenes).
    mutating func scenes(from sentences: [String], count: Int) -> [SceneBody] {
        let count = max(1, count)
        let source = sentences.isEmpty ? ["A quiet moment."] : sentences
        let subject = self.facts.appearance.map { "\(self.facts.name), with \($0)" } ?? self.facts.name
        return (0..<count).map { index in
            let start = index * source.count / count
            let end = max(start + 1, (index + 1) * source.count / count)
            let passage = source[min(start, source.count - 1)..<min(end, source.count)].joined(separator: " ")
            let gist = passage.split(separator: " ").prefix(12).joined(separator: " ")
            return SceneBody(
                number: index + 1, content: passage,
                visualizationPrompt: "A gentle picture-book illustration of \(subject): \(gist)"
            )
        }
    }

    private mutating func sentences(words: Int) -> [String] {
        var result: [String] = []
        var remaining = words
        // A sentence goes in when it fits and leaves room for the ending, or ends the count exactly.
        func fits(_ sentence: String, keeping reserve: Int) -> Bool {
            let count = WordCounter.count(sentence)
            return count > 0 && (count + reserve <= remaining || count == remaining)
        }
        func add(_ sentence: String) {
            result.append(Self.capitalized(sentence))
            remaining -= WordCounter.count(sentence)
        }
        let ending = "In the end, \(self.facts.name) was home again, safe, warm and happy."
        let reserve = WordCounter.count(ending) + 1
        for opening in self.openings() where fits(opening, keeping: reserve) { add(opening) }
        // The middle: every kind of sentence once, in a seeded order, before any comes again.
        var cycle: [String] = []
        while remaining > reserve {
            if cycle.isEmpty { cycle = self.middleSentences().shuffled(using: &self.random) }
            guard let index = cycle.firstIndex(where: { fits($0, keeping: reserve) }) else { break }
            add(cycle.remove(at: index))
        }
        if fits(ending, keeping: 1) { add(ending) }
        // The rest in short closing sentences, each length used once while it can be.
        var length = Self.closings.count
        while remaining > 0 {
            if length == 0 || length > remaining { length = min(remaining, Self.closings.count) }
            add(Self.closings[length - 1])
            length -= 1
        }
        return result
    }

    /// The first sentences: who the hero is and what the story is about.
    private func openings() -> [String] {
        let facts = self.facts
        var sentences: [String] = []
        switch (facts.primaryTrait, facts.secondaryTrait) {
        case let (first?, second?): sentences.append("Once upon a time there was a \(first) and \(second) hero named \(facts.name).")
        case let (only?, nil), let (nil, only?): sentences.append("Once upon a time there was a \(only) hero named \(facts.name).")
        case (nil, nil): sentences.append("Once upon a time there was a hero named \(facts.name).")
        }
        if let appearance = facts.appearance { sentences.append("You could always spot \(facts.name): \(appearance).") }
        if let setting = facts.setting { sentences.append("This is the story of \(facts.name) and \"\(setting)\".") }
        return sentences
    }

    /// One sentence of each kind for the story's middle, with objects and places drawn from the seed.
    private mutating func middleSentences() -> [String] {
        let facts = self.facts
        let name = facts.name
        var object: String { Self.objects.randomElement(using: &self.random)! }
        var place: String { Self.places.randomElement(using: &self.random)! }
        var sentences = [
            "\(name) found \(object) \(place).",
            "\(name) followed a little path \(place) and found \(object).",
            "Together with a new friend, \(name) shared \(object).",
            "A gentle wind whispered \(name)'s name \(place).",
            "\(name) took a deep breath and smiled \(place).",
        ]
        if let trait = facts.primaryTrait { sentences.append("\(name) stayed \(trait) when the path grew dark \(place).") }
        if let trait = facts.secondaryTrait { sentences.append("Being \(trait), \(name) looked closely at \(object).") }
        if let ability = facts.ability { sentences.append("\(name)'s special gift helped once more: \(ability).") }
        if let setting = facts.setting { sentences.append("Holding \(object), \(name) thought about \"\(setting)\" and smiled.") }
        return sentences
    }

    private func paragraphs(_ sentences: [String]) -> String {
        stride(from: 0, to: sentences.count, by: 5).map { sentences[$0..<min($0 + 5, sentences.count)].joined(separator: " ") }
            .joined(separator: "\n\n")
    }

    private static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }
}

/// What the story prompt (`StoryPrompt.user`) says about the hero and the event, read back from its lines.
struct StoryFacts: Equatable {
    var name = "our hero"
    var primaryTrait: String?
    var secondaryTrait: String?
    var appearance: String?
    var ability: String?
    /// The built-in event's name, or the family's event title.
    var setting: String?

    init() {}

    init(prompt: String) {
        for line in prompt.split(whereSeparator: \.isNewline) {
            let text = String(line)
            func value(after prefix: String) -> String? {
                guard text.hasPrefix(prefix) else { return nil }
                let rest = String(text.dropFirst(prefix.count)).trimmedWhitespace
                return rest.isEmpty ? nil : String(rest.prefix(200))
            }
            if let name = value(after: "- name: ") ?? value(after: "Hero: ") {
                self.name = name
            } else if let trait = value(after: "- primary trait: ") {
                self.primaryTrait = trait
            } else if let trait = value(after: "- secondary trait: ") {
                self.secondaryTrait = trait
            } else if let appearance = value(after: "- appearance: ") {
                self.appearance = appearance.hasSuffix(".") ? String(appearance.dropLast()) : appearance
            } else if let ability = value(after: "- special ability: ") {
                self.ability = ability.hasSuffix(".") ? String(ability.dropLast()) : ability
            } else if let setting = value(after: "Event: ") ?? value(after: "- title: ") {
                self.setting = setting
            }
        }
    }
}
