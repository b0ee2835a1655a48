/// The phrases the prompts state counts with. The offline provider reads the same phrases back, so its answers
/// follow the request (`about 750 words`, `exactly 4 scenes`).
enum PromptMarkers {
    static func words(_ count: Int) -> String { "about \(count) words" }
    static func scenes(_ count: Int) -> String { "exactly \(count) scenes" }
    /// Put before the story text in the extract-scenes prompt.
    static let storyStart = "STORY:\n"

    /// The number in the first `about N words` of `text`.
    static func wordCount(in text: String) -> Int? { self.integer(in: text, after: "about ", before: " words") }
    /// The number in the first `exactly N scenes` of `text`.
    static func sceneCount(in text: String) -> Int? { self.integer(in: text, after: "exactly ", before: " scenes") }

    private static func integer(in text: String, after prefix: String, before suffix: String) -> Int? {
        var rest = Substring(text)
        while let range = rest.firstRange(of: prefix) {
            let tail = rest[range.upperBound...]
            let digits = tail.prefix(while: { $0.isASCII && $0.isNumber })
            if !digits.isEmpty, digits.count <= 7, tail.dropFirst(digits.count).hasPrefix(suffix) {
                return Int(digits)
            }
            rest = tail
        }
        return nil
    }
}
