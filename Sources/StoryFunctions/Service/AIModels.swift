/// The model each function calls. Every one is configurable; the defaults are the current OpenAI models.
public struct AIModels: Sendable, Equatable {
    /// Story and scene extraction (structured-output chat completions).
    public var text = "gpt-5"
    /// Audio synthesis (`audio/speech`).
    public var speech = "gpt-4o-mini-tts"
    /// The default voice when a request names none.
    public var voice = "coral"
    /// Moderation of user-written text.
    public var moderation = "omni-moderation-latest"
    /// Avatars and scene illustrations (`images/generations`, `images/edits`).
    public var image = "gpt-image-2.5-flare"

    public init() {}
}
