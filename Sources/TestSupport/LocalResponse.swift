/// What a ``LocalHTTPServer`` handler answers. `Content-Length` is set from ``body``.
public struct LocalResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header fields to send, in order (invalid names are skipped).
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// A response; by default `200` with no headers and an empty body.
    public init(status: Int = 200, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response: `Content-Type: application/json` and `json` as the body.
    public static func json(_ json: String, status: Int = 200) -> LocalResponse {
        LocalResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(json.utf8))
    }

    /// A plain-text response: `Content-Type: text/plain; charset=utf-8` and `text` as the body.
    public static func text(_ text: String, status: Int = 200) -> LocalResponse {
        LocalResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }
}
