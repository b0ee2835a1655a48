/// The documented bounds of every request field. Strings are measured in Unicode code points after trimming
/// whitespace (as JSON Schema's `maxLength` in the API description, and OpenAI's own limits, count them), and must
/// not be empty.
///
/// | field | bound |
/// | --- | --- |
/// | request body | ≤ 262,144 bytes (`StoryFunctionsService.maximumBodyBytes`, 413 above) |
/// | `hero.name` | ≤ 100 |
/// | `hero.primary_trait`, `hero.secondary_trait`, `hero.special_ability` | ≤ 200 |
/// | `hero.appearance` | ≤ 500 |
/// | `hero.age` (optional integer) | 0…150 |
/// | `hero_id`, `story_id`, `hero_generation_id` | ≤ 128 |
/// | `event.data.name` (built-in event), `event.data.title` | ≤ 200 |
/// | `event.data.description` | ≤ 2,000 |
/// | `event.data.prompt_seed` | ≤ 1,000 |
/// | `event.data.tone`, `event.data.age_range` | ≤ 100 |
/// | `event.data.keywords` | ≤ 20 items, each ≤ 50 |
/// | `target_duration` (seconds, a number) | 30…1800 |
/// | `story_content` | ≤ 50,000 |
/// | `target_scene_count` (integer) | 1…20 |
/// | `text` (audio) | ≤ 20,000 |
/// | `speed` (a number) | 0.25…4.0 |
/// | `prompt` (avatar, illustration) | ≤ 4,000 |
/// | `scene_number` (integer) | 1…1,000 |
public enum FunctionLimits {
    public static let heroName = 100
    public static let trait = 200
    public static let appearance = 500
    public static let heroAge = 0...150
    public static let identifier = 128
    public static let eventTitle = 200
    public static let eventDescription = 2_000
    public static let promptSeed = 1_000
    public static let shortText = 100
    public static let keywordCount = 20
    public static let keyword = 50
    public static let targetDuration: ClosedRange<Double> = 30...1800
    public static let storyContent = 50_000
    public static let sceneCount = 1...20
    public static let audioText = 20_000
    public static let speed: ClosedRange<Double> = 0.25...4.0
    public static let prompt = 4_000
    public static let sceneNumber = 1...1_000
    /// The speech endpoint's input limit (characters); longer text is split.
    public static let speechChunk = 4_096
    /// Spoken words per minute, for story length and estimated duration.
    public static let wordsPerMinute = 150.0
}
