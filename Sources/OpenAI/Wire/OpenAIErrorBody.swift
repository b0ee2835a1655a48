/// OpenAI's error answer: `{"error": {"message", "type", "param", "code"}}`. Read only to classify the
/// error; its message is never copied into an `AIError` or a log (it may quote the request).
struct OpenAIErrorBody: Decodable {
    var error: Detail?

    struct Detail: Decodable {
        var message: String?
        var type: String?
        var code: String?

        enum CodingKeys: String, CodingKey {
            case message, type, code
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.message = try? container.decodeIfPresent(String.self, forKey: .message)
            self.type = try? container.decodeIfPresent(String.self, forKey: .type)
            if let code = try? container.decodeIfPresent(String.self, forKey: .code) {
                self.code = code
            } else if let code = try? container.decodeIfPresent(Int.self, forKey: .code) {
                self.code = String(code)
            } else {
                self.code = nil
            }
        }
    }
}
