/// An error answer in OpenAI's shape, `{"error": {"message", "type", "param", "code"}}`, with its status.
/// Every failure the mock reports to a client is one of these, rendered in one place (``response``).
struct MockAPIError: Error, Sendable, Equatable {
    let status: Int
    let type: String
    let code: String?
    let param: String?
    let message: String
    /// Seconds for a `Retry-After` header.
    let retryAfter: Int?
    /// The methods for a 405's `Allow` header.
    let allowed: String?

    init(status: Int, type: String, code: String?, param: String? = nil, message: String, retryAfter: Int? = nil, allowed: String? = nil) {
        self.status = status
        self.type = type
        self.code = code
        self.param = param
        self.message = message
        self.retryAfter = retryAfter
        self.allowed = allowed
    }

    /// A stable label for logs.
    var shortDescription: String { self.code ?? self.type }

    static func invalidAPIKey(_ message: String) -> Self {
        Self(status: 401, type: "invalid_request_error", code: "invalid_api_key", message: message)
    }

    static func invalidRequest(_ message: String, param: String? = nil) -> Self {
        Self(status: 400, type: "invalid_request_error", code: nil, param: param, message: message)
    }

    static func notFound(_ path: String) -> Self {
        Self(status: 404, type: "invalid_request_error", code: "unknown_url", message: "Unknown request URL: \(path).")
    }

    static func methodNotAllowed(_ method: String, _ path: String, allowed: String = "POST") -> Self {
        Self(status: 405, type: "invalid_request_error", code: "method_not_allowed",
             message: "Method \(method) is not allowed for \(path); use \(allowed).", allowed: allowed)
    }

    static func bodyTooLarge(limit: Int) -> Self {
        Self(status: 413, type: "invalid_request_error", code: "request_too_large",
             message: "The request body is larger than \(limit) bytes.")
    }

    static let contentPolicy = Self(
        status: 400, type: "invalid_request_error", code: "content_policy_violation",
        message: "Your request was rejected as a result of our safety system."
    )

    /// A scripted `.status` fault.
    static func scripted(status: Int, retryAfter: Int?) -> Self {
        switch status {
        case 429:
            Self(status: 429, type: "requests", code: "rate_limit_exceeded",
                 message: "Rate limit reached for requests. Please try again later.", retryAfter: retryAfter)
        case 500..<600:
            Self(status: status, type: "server_error", code: nil,
                 message: "The server had an error while processing your request. Sorry about that!", retryAfter: retryAfter)
        default:
            Self(status: status, type: "invalid_request_error", code: nil, message: "Scripted error \(status).", retryAfter: retryAfter)
        }
    }

    /// A provider failure other than a content-policy refusal.
    static func provider(_ kind: String) -> Self {
        switch kind {
        case "rate_limited":
            Self(status: 429, type: "requests", code: "rate_limit_exceeded", message: "Rate limit reached for requests.")
        case "timeout":
            Self(status: 504, type: "server_error", code: "timeout", message: "The model took too long to answer.")
        default:
            Self(status: 500, type: "server_error", code: nil, message: "The server had an error while processing your request.")
        }
    }

    /// The JSON body.
    var body: JSONValue {
        .object([
            "error": .object([
                "message": .string(self.message),
                "type": .string(self.type),
                "param": self.param.map(JSONValue.string) ?? .null,
                "code": self.code.map(JSONValue.string) ?? .null,
            ])
        ])
    }
}
