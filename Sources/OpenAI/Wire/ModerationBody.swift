/// The `POST /moderations` body (`CreateModerationRequest`: `model` and `input`; it has no end-user field).
struct ModerationBody: Encodable {
    var model: String
    var input: String

    init(_ request: ModerationRequest) {
        self.model = request.model
        self.input = request.input
    }
}

/// The parts of a `CreateModerationResponse` the client reads.
struct ModerationResponse: Decodable {
    var results: [Result]

    struct Result: Decodable {
        var flagged: Bool
        /// Category name → flagged (`null` read as not flagged).
        var categories: [String: Bool?]
    }
}
