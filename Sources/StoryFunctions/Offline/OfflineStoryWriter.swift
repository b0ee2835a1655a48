/// Deterministic stand-in stories and scenes for the offline provider: plain English sentences of seeded words.
struct OfflineStoryWriter {
    private var random: SeededRandom

    init(seed: UInt64) { self.random = SeededRandom(seed: seed) }

    private static let subjects = ["the little fox", "a brave hero", "the wise owl", "a gentle dragon", "the tiny robot",
                                   "the kind bear", "a curious rabbit", "the happy turtle"]
    private static let verbs = ["found", "painted", "carried", "followed", "shared", "discovered", "built", "sang to"]
    private static let objects = ["a glowing lantern", "the silver moon", "a basket of apples", "the sleepy river",
                                  "a map of the stars", "the old oak tree", "a warm blanket", "the rainbow bridge"]
    private static let endings = ["before the sun went down", "with a big smile", "under the soft blue sky",
                                  "while the birds were singing", "in the quiet forest", "and everyone laughed"]
    private static let titleWords = ["Lantern", "Moon", "River", "Forest", "Rainbow", "Star", "Meadow", "Cloud"]

    /// A title and `words` words of sentences (exactly `words` words, at least one sentence).
    mutating func story(words: Int, scenes: Int) -> StoryBody {
        let sentences = self.sentences(words: max(1, words))
        let content = self.paragraphs(sentences)
        let title = "The \(Self.titleWords.randomElement(using: &self.random)!) Adventure"
        return StoryBody(title: title, content: content, scenes: self.scenes(from: sentences, count: scenes))
    }

    /// `count` scenes covering `sentences` in order (sentences are reused when there are fewer than scenes).
    mutating func scenes(from sentences: [String], count: Int) -> [SceneBody] {
        let count = max(1, count)
        let source = sentences.isEmpty ? ["A quiet moment."] : sentences
        return (0..<count).map { index in
            let start = index * source.count / count
            let end = max(start + 1, (index + 1) * source.count / count)
            let passage = source[min(start, source.count - 1)..<min(end, source.count)].joined(separator: " ")
            let gist = passage.split(separator: " ").prefix(12).joined(separator: " ")
            return SceneBody(
                number: index + 1, content: passage,
                visualizationPrompt: "A gentle picture-book illustration: \(gist)"
            )
        }
    }

    private mutating func sentences(words: Int) -> [String] {
        var result: [String] = []
        var remaining = words
        while remaining > 0 {
            var sentence = [Self.subjects.randomElement(using: &self.random)!, Self.verbs.randomElement(using: &self.random)!,
                            Self.objects.randomElement(using: &self.random)!, Self.endings.randomElement(using: &self.random)!]
                .joined(separator: " ").split(separator: " ").map(String.init)
            if sentence.count > remaining || remaining - sentence.count < 3 && remaining - sentence.count > 0 {
                // Fit the last sentence(s) to the exact count.
                let take = remaining - sentence.count > 0 ? max(1, remaining / 2) : remaining
                sentence = Array(sentence.prefix(take))
                while sentence.count < take { sentence.append("softly") }
            }
            remaining -= sentence.count
            var text = sentence.joined(separator: " ")
            text = text.prefix(1).uppercased() + text.dropFirst() + "."
            result.append(text)
        }
        return result
    }

    private func paragraphs(_ sentences: [String]) -> String {
        stride(from: 0, to: sentences.count, by: 5).map { sentences[$0..<min($0 + 5, sentences.count)].joined(separator: " ") }
            .joined(separator: "\n\n")
    }
}
