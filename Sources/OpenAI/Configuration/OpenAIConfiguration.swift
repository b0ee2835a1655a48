/// Settings for one ``OpenAIClient``; every key but ``apiKey`` has a default.
///
/// | key | type | default |
/// | --- | --- | --- |
/// | ``baseURL`` | `String` | `https://api.openai.com/v1` (`OPENAI_BASE_URL`) |
/// | ``apiKey`` | ``APIKey`` | required (`OPENAI_API_KEY`) |
/// | ``maxAttempts`` | `Int` | 3 (first try included) |
/// | ``deadlines`` | ``Deadlines`` | chat 120 s, speech 60 s, images 120 s, moderation 15 s |
/// | ``connectTimeout`` | `Duration` | 10 s (capped by the time left) |
/// | ``backoffBase`` | `Duration` | 0.5 s |
/// | ``backoffCap`` | `Duration` | 8 s |
/// | ``defaultRateLimitRetryAfter`` | `Duration` | 20 s |
public struct OpenAIConfiguration: Sendable {
    /// The API root, without a trailing slash; endpoints are appended (`{baseURL}/chat/completions`).
    public var baseURL: String
    /// The key sent as `Authorization: Bearer <key>`.
    public var apiKey: APIKey
    /// Attempts per call, the first included (at least 1). Only 429, 500, 502, 503, 504 and connection
    /// failures are retried.
    public var maxAttempts: Int
    /// The overall deadline of one call, retries and waits included, per kind of call.
    public var deadlines: Deadlines
    /// How long connecting (TCP and TLS) may take on one attempt; never more than the time left.
    public var connectTimeout: Duration
    /// The backoff before retry `n` (1-based) is a uniformly random wait in `0...min(backoffCap, backoffBase * 2^(n-1))`.
    public var backoffBase: Duration
    /// The largest backoff before `Retry-After` is applied.
    public var backoffCap: Duration
    /// `AIError.retryAfter` for a 429 that carried no `Retry-After`.
    public var defaultRateLimitRetryAfter: Duration

    /// `https://api.openai.com/v1`.
    public static let defaultBaseURL = "https://api.openai.com/v1"

    /// A configuration; every parameter but `apiKey` has the default documented on the type.
    public init(
        apiKey: APIKey,
        baseURL: String = OpenAIConfiguration.defaultBaseURL,
        maxAttempts: Int = 3,
        deadlines: Deadlines = .init(),
        connectTimeout: Duration = .seconds(10),
        backoffBase: Duration = .milliseconds(500),
        backoffCap: Duration = .seconds(8),
        defaultRateLimitRetryAfter: Duration = .seconds(20)
    ) {
        var baseURL = baseURL
        while baseURL.hasSuffix("/") { baseURL.removeLast() }
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.maxAttempts = max(1, maxAttempts)
        self.deadlines = deadlines
        self.connectTimeout = connectTimeout
        self.backoffBase = backoffBase
        self.backoffCap = backoffCap
        self.defaultRateLimitRetryAfter = defaultRateLimitRetryAfter
    }

    /// The overall deadline of one call per ``OpenAICallKind``.
    public struct Deadlines: Sendable, Hashable {
        /// `chat/completions`. Default 120 s.
        public var chat: Duration
        /// `audio/speech`. Default 60 s.
        public var speech: Duration
        /// `images/generations` and `images/edits`. Default 120 s.
        public var images: Duration
        /// `moderations`. Default 15 s.
        public var moderation: Duration

        /// Deadlines; every parameter has the default documented on its property.
        public init(
            chat: Duration = .seconds(120),
            speech: Duration = .seconds(60),
            images: Duration = .seconds(120),
            moderation: Duration = .seconds(15)
        ) {
            self.chat = chat
            self.speech = speech
            self.images = images
            self.moderation = moderation
        }

        /// The same deadline for every kind of call (tests, load tests).
        public static func all(_ deadline: Duration) -> Deadlines {
            Deadlines(chat: deadline, speech: deadline, images: deadline, moderation: deadline)
        }

        /// The deadline for `kind`.
        public subscript(kind: OpenAICallKind) -> Duration {
            switch kind {
            case .chat: self.chat
            case .speech: self.speech
            case .images: self.images
            case .moderation: self.moderation
            }
        }
    }
}
