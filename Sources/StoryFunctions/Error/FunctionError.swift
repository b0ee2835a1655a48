public import OpenAI

/// Why one of the five functions refused or failed: an HTTP status, a stable `code` the app switches on,
/// a client-safe `message` (it names the offending field, never echoes user text), the dotted `field` path
/// where a request field is at fault, and the provider's `AIError` where the provider failed.
///
/// Codes: `INVALID_ARGUMENT` (400), `CONTENT_POLICY_VIOLATION` (400), `NOT_FOUND` (404),
/// `PAYLOAD_TOO_LARGE` (413), `STORAGE_ERROR` (500), `UPSTREAM_ERROR` (502), `UPSTREAM_RATE_LIMITED` (503),
/// `STORAGE_UNAVAILABLE` (503),
/// `UPSTREAM_TIMEOUT` (504). The gateway may map `ai` itself; the statuses here are sensible defaults.
public struct FunctionError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: Int
    /// Stable machine-readable code, e.g. `INVALID_ARGUMENT`.
    public let code: String
    /// A sentence for people; names the field, never contains user text, prompts or keys.
    public let message: String
    /// The dotted path of the offending request field (e.g. `hero.name`, `event.data.keywords[2]`).
    public let field: String?
    /// The provider's error, when the provider failed.
    public let ai: AIError?
    /// Seconds until a retry may succeed (`Retry-After`), when the failure is temporary.
    public let retryAfter: Int?

    public init(status: Int, code: String, message: String, field: String? = nil, ai: AIError? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.ai = ai
        self.retryAfter = retryAfter
    }

    public var description: String { "\(self.code): \(self.message)" }
    /// A stable label for metrics and logs.
    public var shortDescription: String { self.ai.map { "\(self.code.lowercased()).\($0.shortDescription)" } ?? self.code.lowercased() }

    // MARK: Factories

    /// 400 `INVALID_ARGUMENT` for `field`.
    public static func invalidArgument(field: String?, _ message: String) -> FunctionError {
        FunctionError(status: 400, code: "INVALID_ARGUMENT", message: message, field: field)
    }

    /// 400 `INVALID_ARGUMENT`: the body does not parse as JSON.
    public static let invalidJSON = FunctionError(
        status: 400, code: "INVALID_ARGUMENT", message: "The request body is not valid JSON."
    )

    /// 400 `CONTENT_POLICY_VIOLATION`: moderation flagged user text (never echoed).
    public static func contentPolicy(ai: AIError? = nil) -> FunctionError {
        FunctionError(
            status: 400, code: "CONTENT_POLICY_VIOLATION",
            message: "The text was not allowed by the content policy. Please rephrase it.", ai: ai
        )
    }

    /// 404 `NOT_FOUND`; `field` names the id that was not found (never why).
    public static func notFound(field: String) -> FunctionError {
        FunctionError(status: 404, code: "NOT_FOUND", message: "`\(field)` does not name an existing item.", field: field)
    }

    /// 413 `PAYLOAD_TOO_LARGE`.
    public static let payloadTooLarge = FunctionError(
        status: 413, code: "PAYLOAD_TOO_LARGE",
        message: "The request body is larger than \(StoryFunctionsService.maximumBodyBytes) bytes."
    )

    /// 500 `STORAGE_ERROR`: the media store failed.
    public static let storage = FunctionError(status: 500, code: "STORAGE_ERROR", message: "The media could not be stored or read.")

    /// 503 `STORAGE_UNAVAILABLE`: the object store did not answer, or refused, after its retries.
    public static let storageUnavailable = FunctionError(
        status: 503, code: "STORAGE_UNAVAILABLE", message: "The media store is unavailable. Please retry later.", retryAfter: 5
    )

    /// 502 `UPSTREAM_ERROR` for an unreadable provider answer (`ai.kind == .invalidResponse`).
    public static func invalidUpstream(_ what: String) -> FunctionError {
        FunctionError(ai: AIError(.invalidResponse, what))
    }

    /// The default mapping of a provider failure: `contentPolicy` → 400 `CONTENT_POLICY_VIOLATION`,
    /// `rateLimited` → 503 `UPSTREAM_RATE_LIMITED`, `timeout` → 504 `UPSTREAM_TIMEOUT`, else 502 `UPSTREAM_ERROR`.
    public init(ai: AIError) {
        switch ai.kind {
        case .contentPolicy:
            self = .contentPolicy(ai: ai)
        case .rateLimited:
            self.init(
                status: 503, code: "UPSTREAM_RATE_LIMITED",
                message: "The AI provider is busy. Please retry later.", ai: ai
            )
        case .timeout:
            self.init(status: 504, code: "UPSTREAM_TIMEOUT", message: "The AI provider did not answer in time.", ai: ai)
        case .upstream, .invalidResponse, .unavailable:
            self.init(status: 502, code: "UPSTREAM_ERROR", message: "The AI provider failed to answer.", ai: ai)
        }
    }
}
