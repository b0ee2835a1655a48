/// The OpenAI endpoints the mock serves, each `POST` under the base path `/v1`.
public enum MockEndpoint: String, Sendable, Hashable, CaseIterable {
    /// `POST /v1/chat/completions`.
    case chatCompletions = "chat.completions"
    /// `POST /v1/audio/speech`.
    case audioSpeech = "audio.speech"
    /// `POST /v1/images/generations`.
    case imagesGenerations = "images.generations"
    /// `POST /v1/images/edits` (multipart/form-data).
    case imagesEdits = "images.edits"
    /// `POST /v1/moderations`.
    case moderations

    /// The path under the base path, e.g. `/v1/chat/completions`.
    public var path: String {
        switch self {
        case .chatCompletions: "/v1/chat/completions"
        case .audioSpeech: "/v1/audio/speech"
        case .imagesGenerations: "/v1/images/generations"
        case .imagesEdits: "/v1/images/edits"
        case .moderations: "/v1/moderations"
        }
    }

    /// The endpoint at `path` (query string removed, one trailing slash tolerated), or `nil`.
    public init?(path: String) {
        var path = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        guard let endpoint = Self.allCases.first(where: { $0.path == path }) else { return nil }
        self = endpoint
    }
}
