import HTTPTypes
import OpenAI
import StoryFunctions

extension GatewayError {
    /// The AI functions' errors. Provider failures keep their stable codes: a refusal is the client's 400, an
    /// upstream rate limit is a 503 with `retryAfter` (kept apart from our own 429), a timeout a 504, the rest 502.
    init(_ failure: FunctionError) {
        if let ai = failure.ai {
            self.init(ai)
            return
        }
        self.init(
            status: HTTPResponse.Status(code: failure.status), code: failure.code, message: failure.message,
            reason: failure.code.lowercased(), retryAfter: failure.retryAfter
        )
    }

    init(_ failure: AIError) {
        switch failure.kind {
        case .contentPolicy:
            self.init(
                status: .badRequest, code: "CONTENT_POLICY_VIOLATION",
                message: "The request was refused by the content policy.", reason: "content_policy"
            )
        case .rateLimited:
            self.init(
                status: .serviceUnavailable, code: "UPSTREAM_RATE_LIMITED",
                message: "The AI provider is rate limiting; try again later.", reason: "upstream_rate_limited",
                retryAfter: Self.retryAfterSeconds(failure.retryAfter)
            )
        case .timeout:
            self.init(status: .gatewayTimeout, code: "UPSTREAM_TIMEOUT", message: "The AI provider did not answer in time.", reason: "upstream_timeout")
        case .upstream, .invalidResponse, .unavailable:
            self.init(
                status: .badGateway, code: "UPSTREAM_ERROR", message: "The AI provider failed to answer.",
                reason: "upstream_\(failure.shortDescription)"
            )
        }
    }

    static func payloadTooLarge(limit: Int) -> GatewayError {
        GatewayError(
            status: .contentTooLarge, code: "PAYLOAD_TOO_LARGE", message: "The request body is larger than \(limit) bytes.",
            reason: "payload_too_large"
        )
    }

    /// Whole seconds, 1 to `AIError.maximumRetryAfter`: 20 when the provider said nothing readable.
    static func retryAfterSeconds(_ seconds: Double?) -> Int {
        guard let seconds, seconds.isFinite else { return 20 }
        return Int(min(AIError.maximumRetryAfter, max(1, seconds.rounded(.up))))
    }
}
