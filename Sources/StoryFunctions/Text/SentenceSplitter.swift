/// Splits text into sentences, each keeping its trailing whitespace, so joining them gives the text back.
///
/// A sentence ends after `.`, `!`, `?`, `…` (or their CJK forms), any closing quotes or brackets after it, and
/// then whitespace; a line break always ends one.
enum SentenceSplitter {
    private static let terminators: Set<Character> = [".", "!", "?", "…", "。", "！", "？"]
    private static let closers: Set<Character> = ["\"", "'", "”", "’", "»", ")", "]", "」", "』"]

    static func sentences(_ text: String) -> [Substring] {
        var result: [Substring] = []
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            var end: String.Index?
            if character.isNewline {
                end = text.index(after: index)
            } else if self.terminators.contains(character) {
                var next = text.index(after: index)
                while next < text.endIndex, self.terminators.contains(text[next]) || self.closers.contains(text[next]) {
                    next = text.index(after: next)
                }
                if next == text.endIndex || text[next].isWhitespace || "。！？".contains(character) { end = next }
                else { index = next; continue }
            }
            if var boundary = end {
                while boundary < text.endIndex, text[boundary].isWhitespace { boundary = text.index(after: boundary) }
                result.append(text[start..<boundary])
                start = boundary
                index = boundary
            } else {
                index = text.index(after: index)
            }
        }
        if start < text.endIndex { result.append(text[start...]) }
        return result
    }
}
