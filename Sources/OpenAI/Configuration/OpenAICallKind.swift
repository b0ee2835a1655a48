/// The kinds of call ``OpenAIClient`` makes, each with its own deadline (``OpenAIConfiguration/Deadlines``).
public enum OpenAICallKind: String, Sendable, Hashable, CaseIterable {
    /// `chat/completions`.
    case chat
    /// `audio/speech`.
    case speech
    /// `images/generations` and `images/edits`.
    case images
    /// `moderations`.
    case moderation
}
