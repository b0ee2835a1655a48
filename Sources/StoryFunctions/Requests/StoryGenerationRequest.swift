/// `POST /functions/v1/story-generation` as the app sends it.
struct StoryGenerationRequest: Decodable {
    struct Hero: Decodable {
        var name: String
        var primaryTrait: String
        var secondaryTrait: String
        var appearance: String
        var specialAbility: String
        /// A number, checked to be a whole one.
        var age: Double?

        enum CodingKeys: String, CodingKey {
            case name, appearance, age
            case primaryTrait = "primary_trait"
            case secondaryTrait = "secondary_trait"
            case specialAbility = "special_ability"
        }
    }

    /// `event.data` for `type: built_in`: a named event from the app's catalogue.
    struct BuiltInEvent: Decodable {
        var name: String
    }

    /// `event.data` for `type: custom`: an event the user wrote.
    struct CustomEvent: Decodable {
        var title: String
        var description: String
        var promptSeed: String?
        var tone: String?
        var ageRange: String?
        var keywords: [String]?

        enum CodingKeys: String, CodingKey {
            case title, description, tone, keywords
            case promptSeed = "prompt_seed"
            case ageRange = "age_range"
        }
    }

    enum Event: Decodable {
        case builtIn(BuiltInEvent)
        case custom(CustomEvent)

        enum CodingKeys: String, CodingKey { case type, data }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let type = try container.decode(String.self, forKey: .type)
            switch type.trimmedWhitespace.lowercased() {
            case "built_in":
                self = .builtIn(try container.decode(BuiltInEvent.self, forKey: .data))
            case "custom":
                self = .custom(try container.decode(CustomEvent.self, forKey: .data))
            default:
                throw FunctionError.invalidArgument(field: "event.type", "`event.type` must be one of: built_in, custom.")
            }
        }
    }

    var hero: Hero
    var heroID: String?
    var event: Event
    var targetDuration: Double
    var language: String

    enum CodingKeys: String, CodingKey {
        case hero, event, language
        case heroID = "hero_id"
        case targetDuration = "target_duration"
    }
}
