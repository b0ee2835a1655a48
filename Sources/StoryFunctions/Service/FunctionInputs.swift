/// `audio-synthesis`'s request, decoded and checked.
struct AudioInput {
    let text: String
    let language: String
    /// nil: the configured voice.
    let voice: String?
    let speed: Double

    init(_ body: [UInt8]) throws(FunctionError) {
        let request = try RequestDecoder.decode(AudioSynthesisRequest.self, from: body)
        self.text = try FieldRules.text(request.text, "text", maximum: FunctionLimits.audioText)
        self.language = try StoryLanguage.validate(request.language, "language")
        self.voice = try request.voice.map { (voice) throws(FunctionError) in
            try FieldRules.oneOf(voice, "voice", allowed: AudioSynthesisRequest.voices)
        }
        self.speed = try request.speed.map { (speed) throws(FunctionError) in try FieldRules.number(speed, "speed", in: FunctionLimits.speed) } ?? 1
    }
}

extension StoryFunctionsService {
    /// The five functions by name (`story-generation`, …).
    public enum Function: String, Sendable, CaseIterable {
        case storyGeneration = "story-generation"
        case extractScenes = "extract-scenes"
        case audioSynthesis = "audio-synthesis"
        case avatarGeneration = "avatar-generation"
        case sceneIllustration = "scene-illustration"
    }

    /// Decodes `body` for `function` and checks it against the function's field rules, with no I/O: the 400 the
    /// call would answer first, without calling anything (a job is refused so at its creation).
    public static func check(_ body: [UInt8], for function: Function) throws(FunctionError) {
        switch function {
        case .storyGeneration: _ = try ValidStoryRequest(try RequestDecoder.decode(StoryGenerationRequest.self, from: body))
        case .extractScenes: _ = try Self.scenesInput(body)
        case .audioSynthesis: _ = try AudioInput(body)
        case .avatarGeneration: _ = try Self.avatarInput(body)
        case .sceneIllustration: _ = try Self.illustrationInput(body)
        }
    }
}
