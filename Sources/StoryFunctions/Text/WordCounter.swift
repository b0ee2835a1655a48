/// Counts words the way a reader would: runs of non-whitespace that contain a letter or a digit.
enum WordCounter {
    static func count(_ text: String) -> Int {
        var count = 0
        var inWord = false
        var wordHasLetter = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                if inWord, wordHasLetter { count += 1 }
                inWord = false
                wordHasLetter = false
            } else {
                inWord = true
                if scalar.properties.isAlphabetic || scalar.properties.numericType != nil { wordHasLetter = true }
            }
        }
        if inWord, wordHasLetter { count += 1 }
        return count
    }
}
