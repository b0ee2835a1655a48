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

    /// The supported code for `value`, or nil.
    static func normalize(_ value: String) -> String? {
        let primary = value.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? ""
        let code = primary.lowercased()
        return codes.contains(code) ? code : nil
    }

    /// The English name of a supported code, for prompts.
    static func name(of code: String) -> String {
        names.first { $0.code == code }?.name ?? code
    }
}
