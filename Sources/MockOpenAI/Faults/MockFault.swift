/// One scripted misbehaviour, used for the next request to an endpoint in place of a normal answer.
public enum MockFault: Sendable, Equatable {
    /// An error status in OpenAI's error shape; with `retryAfter`, a `Retry-After: <seconds>` header.
    /// 429 is a rate limit, 5xx a server error.
    case status(Int, retryAfter: Int? = nil)
    /// No answer at all until the client goes away or the server stops.
    case hang
    /// The connection is closed without an answer.
    case reset
    /// `200` with `Content-Type: application/json` and a body that is not JSON (`{"choices": [` and garbage).
    case malformedJSON
    /// The normal answer, with its head and first half sent at once and the rest after `delay`.
    case slowBody(Duration)
    /// A content-policy answer: for chat a `200` whose message has `content: null` and a `refusal`; for
    /// moderations a flagged result; for audio and images a `400` with code `content_policy_violation`.
    case refusal
}
