/// The image options the app sends (DALL·E 3's and the GPT image models' own) and what the GPT image models take.
///
/// | app value | sent to the image model |
/// | --- | --- |
/// | quality `standard` / `hd` | `medium` / `high` |
/// | quality `low`, `medium`, `high`, `auto` | unchanged |
/// | size `1792x1024` / `1024x1792` | `1536x1024` / `1024x1536` |
/// | size `1024x1024`, `1536x1024`, `1024x1536`, `auto` | unchanged |
/// | style `vivid` / `natural` | a sentence in the prompt (the models have no style parameter) |
/// | style `none` | nothing |
enum ImageOptions {
    static let qualities = ["standard", "hd", "low", "medium", "high", "auto"]
    static let sizes = ["1024x1024", "1792x1024", "1024x1792", "1024x1536", "1536x1024", "auto"]
    static let styles = ["vivid", "natural", "none"]

    static func quality(_ value: String) -> String {
        switch value {
        case "standard": "medium"
        case "hd": "high"
        default: value
        }
    }

    static func size(_ value: String) -> String {
        switch value {
        case "1792x1024": "1536x1024"
        case "1024x1792": "1024x1536"
        default: value
        }
    }

    /// The prompt sentence for a style, or nil.
    static func styleSentence(_ value: String) -> String? {
        switch value {
        case "vivid": "Style: vivid, with bold saturated colours, dramatic light and a lively, hyper-real look."
        case "natural": "Style: natural, with soft realistic colours and gentle light, not hyper-real."
        default: nil
        }
    }
}
