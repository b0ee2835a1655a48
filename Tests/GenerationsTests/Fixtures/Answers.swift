import Generations

extension StoredAnswer {
    /// A 2xx answer whose body holds every byte value, CR LF among them.
    static let binaryOK = StoredAnswer(
        status: 201, fields: [.init(name: "content-type", value: "audio/mpeg"), .init(name: "x-request-id", value: "r-1")],
        body: Array(0...255) + Array("\r\n\r\n".utf8) + [0, 0]
    )
    static let unavailable = StoredAnswer(status: 503, fields: [.init(name: "retry-after", value: "3")], body: Array(#"{"error":"busy"}"#.utf8))
}
