/// Why a provider call failed. The gateway maps these to HTTP in one place:
/// `contentPolicy` → 400 `CONTENT_POLICY_VIOLATION`, `rateLimited` → 503 `UPSTREAM_RATE_LIMITED` (with `retryAfter`),
/// `timeout` → 504 `UPSTREAM_TIMEOUT`, everything else → 502 `UPSTREAM_ERROR`.
/// Descriptions never contain an API key, a prompt or user text.
public struct AIError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The provider refused the content (moderation flag, safety refusal, content-policy error).
        case contentPolicy = "content_policy"
        /// Still rate-limited after the retries.
        case rateLimited = "rate_limited"
        /// The call's deadline passed.
        case timeout
        /// The provider answered with an error status (bad key, 5xx after retries, 4xx).
        case upstream
        /// The provider's answer could not be read (malformed JSON, wrong shape, undecodable media).
        case invalidResponse = "invalid_response"
        /// The provider could not be reached.
        case unavailable
    }

    public let kind: Kind
    /// A client-safe sentence.
    public let message: String
    /// Seconds to wait, for `rateLimited`: at most ``maximumRetryAfter``.
    public let retryAfter: Double?

    /// The longest wait a provider's answer is read as: a day (a server's `1e22` must not overflow `Duration`).
    public static let maximumRetryAfter: Double = 86_400
    /// The upstream HTTP status, where there was one.
    public let status: Int?

    public init(_ kind: Kind, _ message: String, retryAfter: Double? = nil, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.retryAfter = retryAfter
        self.status = status
    }

    /// A stable label for metrics and logs.
    public var shortDescription: String { self.kind.rawValue }
    public var description: String { "\(self.kind.rawValue): \(self.message)" }
}
