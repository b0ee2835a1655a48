import OpenAI

/// A normal answer from an endpoint, before faults and latency are applied.
struct MockAnswer: Sendable {
    var status: Int = 200
    var contentType: String
    var body: [UInt8]

    static func json(_ value: JSONValue, status: Int = 200) -> MockAnswer {
        MockAnswer(status: status, contentType: "application/json", body: value.bytes)
    }
}

/// What every endpoint gets besides the request body.
struct EndpointContext: Sendable {
    let provider: any AIProvider
    /// The request's sequence number, for ids.
    let sequence: Int
    /// Seconds since 1970, for `created`.
    let now: Int
}
