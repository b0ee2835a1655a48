/// Splits text for the speech endpoint: chunks of at most `limit` Unicode scalars (the endpoint counts
/// characters; a scalar count is never smaller), cut at sentence boundaries. A sentence longer than the limit
/// is cut at word boundaries, and a word longer than it (no spaces at all) at the limit itself — between
/// characters, or inside a character that alone is over the limit (a letter with thousands of combining marks).
enum SpeechChunker {
    static func chunks(_ text: String, limit: Int = FunctionLimits.speechChunk) -> [String] {
        precondition(limit > 0)
        var pieces: [Substring] = []
        for sentence in SentenceSplitter.sentences(text) {
            if sentence.unicodeScalars.count <= limit {
                pieces.append(sentence)
            } else {
                for word in self.words(sentence) {
                    if word.unicodeScalars.count <= limit { pieces.append(word) } else { pieces += self.hardSplit(word, limit: limit) }
                }
            }
        }
        var chunks: [String] = []
        var current = ""
        var currentCount = 0
        func flush() {
            let trimmed = current.trimmedWhitespace
            if !trimmed.isEmpty { chunks.append(trimmed) }
            current = ""
            currentCount = 0
        }
        for piece in pieces {
            let count = piece.unicodeScalars.count
            // Trailing whitespace of the last piece is trimmed away, so measure the piece without it.
            let countWithoutTrailing = piece.unicodeScalars.reversed().drop(while: { $0.properties.isWhitespace }).count
            if currentCount + countWithoutTrailing > limit { flush() }
            current += piece
            currentCount += count
        }
        flush()
        return chunks
    }

    /// Words with their trailing whitespace.
    private static func words(_ text: Substring) -> [Substring] {
        var result: [Substring] = []
        var start = text.startIndex
        var index = text.startIndex
        var sawSpace = false
        while index < text.endIndex {
            let isSpace = text[index].isWhitespace
            if sawSpace, !isSpace {
                result.append(text[start..<index])
                start = index
                sawSpace = false
            }
            if isSpace { sawSpace = true }
            index = text.index(after: index)
        }
        if start < text.endIndex { result.append(text[start...]) }
        return result
    }

    /// Cuts at `limit` scalars, on character boundaries where it can, inside a character over the limit alone.
    private static func hardSplit(_ text: Substring, limit: Int) -> [Substring] {
        var result: [Substring] = []
        var start = text.startIndex
        var count = 0
        var index = text.startIndex
        while index < text.endIndex {
            let size = text[index].unicodeScalars.count
            if count + size > limit, index > start {
                result.append(text[start..<index])
                start = index
                count = 0
            }
            if size > limit {
                // One character over the limit: its scalars, `limit` at a time.
                let next = text.index(after: index)
                var scalars = text[index..<next].unicodeScalars[...]
                while !scalars.isEmpty {
                    result.append(Substring(scalars.prefix(limit)))
                    scalars = scalars.dropFirst(limit)
                }
                start = next
                index = next
                continue
            }
            count += size
            index = text.index(after: index)
        }
        if start < text.endIndex { result.append(text[start...]) }
        return result
    }
}
