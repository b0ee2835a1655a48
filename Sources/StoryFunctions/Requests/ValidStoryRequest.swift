/// A story-generation request after validation: trimmed strings within bounds, a supported language.
struct ValidStoryRequest {
    struct Hero {
        var name, primaryTrait, secondaryTrait, appearance, specialAbility: String
        var age: Int?
    }

    struct CustomEvent {
        var title, description: String
        var promptSeed, tone, ageRange: String?
        var keywords: [String]
    }

    enum Event {
        case builtIn(String)
        case custom(CustomEvent)
    }

    var hero: Hero
    var heroID: String?
    var event: Event
    var targetDuration: Double
    var language: String

    init(_ request: StoryGenerationRequest) throws(FunctionError) {
        let hero = request.hero
        self.hero = Hero(
            name: try FieldRules.text(hero.name, "hero.name", maximum: FunctionLimits.heroName),
            primaryTrait: try FieldRules.text(hero.primaryTrait, "hero.primary_trait", maximum: FunctionLimits.trait),
            secondaryTrait: try FieldRules.text(hero.secondaryTrait, "hero.secondary_trait", maximum: FunctionLimits.trait),
            appearance: try FieldRules.text(hero.appearance, "hero.appearance", maximum: FunctionLimits.appearance),
            specialAbility: try FieldRules.text(hero.specialAbility, "hero.special_ability", maximum: FunctionLimits.trait),
            age: try hero.age.map { (age) throws(FunctionError) in try FieldRules.integer(age, "hero.age", in: FunctionLimits.heroAge) }
        )
        self.heroID = try FieldRules.optionalText(request.heroID, "hero_id", maximum: FunctionLimits.identifier)
        switch request.event {
        case .builtIn(let event):
            self.event = .builtIn(try FieldRules.text(event.name, "event.data.name", maximum: FunctionLimits.eventTitle))
        case .custom(let event):
            var keywords: [String] = []
            if let list = event.keywords {
                if list.count > FunctionLimits.keywordCount {
                    throw .invalidArgument(field: "event.data.keywords", "`event.data.keywords` must have at most \(FunctionLimits.keywordCount) items.")
                }
                for (index, keyword) in list.enumerated() {
                    keywords.append(try FieldRules.text(keyword, "event.data.keywords[\(index)]", maximum: FunctionLimits.keyword))
                }
            }
            self.event = .custom(CustomEvent(
                title: try FieldRules.text(event.title, "event.data.title", maximum: FunctionLimits.eventTitle),
                description: try FieldRules.text(event.description, "event.data.description", maximum: FunctionLimits.eventDescription),
                promptSeed: try FieldRules.optionalText(event.promptSeed, "event.data.prompt_seed", maximum: FunctionLimits.promptSeed),
                tone: try FieldRules.optionalText(event.tone, "event.data.tone", maximum: FunctionLimits.shortText),
                ageRange: try FieldRules.optionalText(event.ageRange, "event.data.age_range", maximum: FunctionLimits.shortText),
                keywords: keywords
            ))
        }
        self.targetDuration = try FieldRules.number(request.targetDuration, "target_duration", in: FunctionLimits.targetDuration)
        self.language = try StoryLanguage.validate(request.language, "language")
    }

    /// Text the client sent, for moderation: the hero and the event (a built-in event's name comes from the client too).
    var userWrittenText: String {
        var parts = [hero.name, hero.primaryTrait, hero.secondaryTrait, hero.appearance, hero.specialAbility]
        switch self.event {
        case .builtIn(let name):
            parts.append(name)
        case .custom(let event):
            parts += [event.title, event.description]
            parts += [event.promptSeed, event.tone, event.ageRange].compactMap { $0 }
            parts += event.keywords
        }
        return parts.joined(separator: "\n")
    }
}

extension StoryLanguage {
    static func validate(_ value: String, _ field: String) throws(FunctionError) -> String {
        guard let code = self.normalize(value.trimmedWhitespace) else {
            throw .invalidArgument(field: field, "`\(field)` must be one of: \(self.codes.joined(separator: ", ")).")
        }
        return code
    }
}
