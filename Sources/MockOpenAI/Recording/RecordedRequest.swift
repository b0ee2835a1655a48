/// One request the mock received, as sent.
public struct RecordedRequest: Sendable, Equatable {
    /// 1 for the first request the server received, then counting up.
    public var sequence: Int
    /// The endpoint it was sent to.
    public var endpoint: MockEndpoint
    /// The method, e.g. `POST`.
    public var method: String
    /// The request target's path, e.g. `/v1/chat/completions`.
    public var path: String
    /// The `Content-Type` header, if any.
    public var contentType: String?
    /// The body bytes, exactly as received.
    public var body: [UInt8]

    /// A recorded request.
    public init(sequence: Int, endpoint: MockEndpoint, method: String, path: String, contentType: String?, body: [UInt8]) {
        self.sequence = sequence
        self.endpoint = endpoint
        self.method = method
        self.path = path
        self.contentType = contentType
        self.body = body
    }

    /// The body as UTF-8 text.
    public var bodyText: String { String(decoding: self.body, as: UTF8.self) }
}
