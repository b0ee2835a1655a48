/// A chat completion with strict structured output.
public struct StructuredChatRequest: Sendable, Equatable {
    public var model: String
    /// The system message: the task and the child-safety instruction.
    public var system: String
    /// The user message.
    public var user: String
    /// `json_schema.name`: `^[a-zA-Z0-9_-]{1,64}$` (e.g. `story`, `scenes`).
    public var schemaName: String
    /// `json_schema.schema`: a JSON Schema object as JSON text, strict-mode compatible (every object has
    /// `additionalProperties: false` and lists all its properties in `required`).
    public var schemaJSON: String
    /// A hash of the user's uid, never the raw uid (`safety_identifier`).
    public var safetyIdentifier: String
    /// `max_completion_tokens`, when set.
    public var maxCompletionTokens: Int?

    public init(
        model: String, system: String, user: String, schemaName: String, schemaJSON: String,
        safetyIdentifier: String, maxCompletionTokens: Int? = nil
    ) {
        self.model = model
        self.system = system
        self.user = user
        self.schemaName = schemaName
        self.schemaJSON = schemaJSON
        self.safetyIdentifier = safetyIdentifier
        self.maxCompletionTokens = maxCompletionTokens
    }
}

public struct StructuredChatResult: Sendable, Equatable {
    /// The assistant message content: a JSON object as UTF-8 text.
    public var json: [UInt8]
    public var promptTokens: Int
    public var completionTokens: Int

    public init(json: [UInt8], promptTokens: Int, completionTokens: Int) {
        self.json = json
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
    }
}

/// `audio/speech`.
public struct SpeechRequest: Sendable, Equatable {
    public var model: String
    public var voice: String
    /// At most 4096 characters (the endpoint's limit); longer text is split by the caller.
    public var input: String
    /// 0.25 to 4.0.
    public var speed: Double
    /// Tone instructions (models that take them).
    public var instructions: String?

    public init(model: String, voice: String, input: String, speed: Double = 1, instructions: String? = nil) {
        self.model = model
        self.voice = voice
        self.input = input
        self.speed = speed
        self.instructions = instructions
    }
}

/// `images/generations`.
public struct ImageRequest: Sendable, Equatable {
    public var model: String
    public var prompt: String
    /// A size the model takes, e.g. `1024x1024`, `1024x1536`, `1536x1024`, `auto`.
    public var size: String
    /// A quality the model takes, e.g. `low`, `medium`, `high`, `auto`.
    public var quality: String
    /// A hash of the user's uid, never the raw uid (`user`, or `safety_identifier` where the API has it).
    public var safetyIdentifier: String

    public init(model: String, prompt: String, size: String, quality: String, safetyIdentifier: String) {
        self.model = model
        self.prompt = prompt
        self.size = size
        self.quality = quality
        self.safetyIdentifier = safetyIdentifier
    }
}

/// `images/edits`: the reference image (a PNG, e.g. the hero's avatar) and a prompt.
public struct ImageEditRequest: Sendable, Equatable {
    public var model: String
    public var prompt: String
    public var image: [UInt8]
    public var size: String
    public var quality: String
    public var safetyIdentifier: String

    public init(model: String, prompt: String, image: [UInt8], size: String, quality: String, safetyIdentifier: String) {
        self.model = model
        self.prompt = prompt
        self.image = image
        self.size = size
        self.quality = quality
        self.safetyIdentifier = safetyIdentifier
    }
}

public struct ImageResult: Sendable, Equatable {
    /// PNG bytes.
    public var png: [UInt8]
    /// The model's revision of the prompt, where it returns one.
    public var revisedPrompt: String?

    public init(png: [UInt8], revisedPrompt: String?) {
        self.png = png
        self.revisedPrompt = revisedPrompt
    }
}

/// `moderations`.
public struct ModerationRequest: Sendable, Equatable {
    public var model: String
    public var input: String

    public init(model: String, input: String) {
        self.model = model
        self.input = input
    }
}

public struct ModerationResult: Sendable, Equatable {
    public var flagged: Bool
    /// The flagged category names (e.g. `violence`), for logs; never shown with the text.
    public var categories: [String]

    public init(flagged: Bool, categories: [String]) {
        self.flagged = flagged
        self.categories = categories
    }
}
