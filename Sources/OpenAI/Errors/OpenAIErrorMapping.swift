/// Turns an OpenAI error answer into an `AIError`: a pure rule. Messages are fixed, client-safe sentences;
/// nothing from the upstream body (which may quote the prompt) is copied.
enum OpenAIErrorMapping {
    /// Error codes that mean the provider refused the content.
    static let contentPolicyCodes: Set<String> = ["content_policy_violation", "moderation_blocked", "content_filter"]

    /// The error for a non-2xx answer.
    ///
    /// - 400 with a content-policy code, or a message about the safety system or content policy → `contentPolicy`;
    /// - 429 → `rateLimited` with `retryAfter` (or `defaultRetryAfter`), except a quota error → `upstream`;
    /// - anything else (401, 403, 404, 422, 5xx, …) → `upstream` with the status.
    static func error(status: Int, body: [UInt8], retryAfter: Duration?, defaultRetryAfter: Duration) -> AIError {
        let detail = Self.detail(body)
        switch status {
        case 400 where Self.isContentPolicy(detail):
            return AIError(.contentPolicy, "The provider refused the content.", status: status)
        case 429 where Self.isQuotaExceeded(detail):
            return AIError(.upstream, "The provider account's quota is exhausted.", status: status)
        case 429:
            let wait = retryAfter ?? defaultRetryAfter
            return AIError(.rateLimited, "The provider is rate limiting requests.", retryAfter: wait.inSeconds, status: status)
        case 401, 403:
            return AIError(.upstream, "The provider rejected the credentials.", status: status)
        case 500...599:
            return AIError(.upstream, "The provider failed (\(status)).", status: status)
        default:
            return AIError(.upstream, "The provider rejected the request (\(status)).", status: status)
        }
    }

    /// A 429 that is a billing problem (`insufficient_quota`): waiting does not help, so it is not retried.
    static func isQuotaExceeded(status: Int, body: [UInt8]) -> Bool {
        status == 429 && Self.isQuotaExceeded(Self.detail(body))
    }

    private static func detail(_ body: [UInt8]) -> OpenAIErrorBody.Detail? {
        ResponseDecoding.decodeIfPossible(OpenAIErrorBody.self, from: body)?.error
    }

    private static func isContentPolicy(_ detail: OpenAIErrorBody.Detail?) -> Bool {
        guard let detail else { return false }
        if let code = detail.code, Self.contentPolicyCodes.contains(code) { return true }
        if let type = detail.type, Self.contentPolicyCodes.contains(type) { return true }
        let message = (detail.message ?? "").lowercased()
        return message.contains("safety system") || message.contains("content policy")
    }

    private static func isQuotaExceeded(_ detail: OpenAIErrorBody.Detail?) -> Bool {
        detail?.code == "insufficient_quota" || detail?.type == "insufficient_quota"
    }
}
