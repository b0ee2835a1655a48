/// The endpoints ``OpenAIClient`` calls: path, kind of call (its deadline) and the largest answer accepted.
enum OpenAIEndpoint: String, Sendable, CaseIterable {
    case chatCompletions = "chat/completions"
    case speech = "audio/speech"
    case imageGenerations = "images/generations"
    case imageEdits = "images/edits"
    case moderations = "moderations"

    /// The path after the base URL; also the `endpoint` in log lines.
    var path: String { self.rawValue }

    var kind: OpenAICallKind {
        switch self {
        case .chatCompletions: .chat
        case .speech: .speech
        case .imageGenerations, .imageEdits: .images
        case .moderations: .moderation
        }
    }

    /// The largest response body accepted: a base64 PNG of a large image fits in 32 MiB, the MP3 of
    /// 4096 characters in 16 MiB.
    var maxResponseBytes: Int {
        switch self {
        case .chatCompletions: 4 << 20
        case .speech: 16 << 20
        case .imageGenerations, .imageEdits: 32 << 20
        case .moderations: 1 << 20
        }
    }

    /// The `Accept` header.
    var accept: String {
        switch self {
        case .speech: "audio/mpeg, application/json"
        default: "application/json"
        }
    }
}
