/// The languages a story can be written in: ISO 639-1 codes of languages written with spaces between words
/// (so word counts and the 150-words-a-minute pace hold).
///
/// `en` English, `fr` French, `es` Spanish, `de` German, `it` Italian, `pt` Portuguese, `nl` Dutch,
/// `sv` Swedish, `da` Danish, `no` Norwegian, `fi` Finnish, `pl` Polish, `cs` Czech, `ro` Romanian,
/// `hu` Hungarian, `el` Greek, `tr` Turkish, `ru` Russian, `uk` Ukrainian, `id` Indonesian.
///
/// Matching is case-insensitive, and a region subtag is ignored (`en-US` and `pt_BR` are `en` and `pt`).
enum StoryLanguage {
    static let names: [(code: String, name: String)] = [
        ("en", "English"), ("fr", "French"), ("es", "Spanish"), ("de", "German"), ("it", "Italian"),
        ("pt", "Portuguese"), ("nl", "Dutch"), ("sv", "Swedish"), ("da", "Danish"), ("no", "Norwegian"),
        ("fi", "Finnish"), ("pl", "Polish"), ("cs", "Czech"), ("ro", "Romanian"), ("hu", "Hungarian"),
        ("el", "Greek"), ("tr", "Turkish"), ("ru", "Russian"), ("uk", "Ukrainian"), ("id", "Indonesian"),
    ]

    static let codes: [String] = names.map(\.code)

    /// The supported code for `value`, or nil: a BCP 47-shaped tag, its subtags 1 to 8 letters or digits separated
    /// by single `-` (or `_`, as Apple's locale identifiers write them); `-en`, `en-`, `en--x` are not tags.
    static func normalize(_ value: String) -> String? {
        let subtags = value.split(separator: "-", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "_", omittingEmptySubsequences: false)
        }
        guard let primary = subtags.first,
            subtags.allSatisfy({ (1...8).contains($0.utf8.count) && $0.utf8.allSatisfy { Self.isAlphanumeric($0) } })
        else { return nil }
        let code = primary.lowercased()
        return codes.contains(code) ? code : nil
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// The English name of a supported code, for prompts.
    static func name(of code: String) -> String {
        names.first { $0.code == code }?.name ?? code
    }
}
