/// The parts of a chat completion (`CreateChatCompletionResponse`) the client reads.
struct ChatCompletionResponse: Decodable {
    var choices: [Choice]
    var usage: Usage?

    struct Choice: Decodable {
        var message: Message?
        var finishReason: String?

        enum CodingKeys: String, CodingKey {
            case message
            case finishReason = "finish_reason"
        }
    }

    struct Message: Decodable {
        var content: String?
        var refusal: String?
    }

    struct Usage: Decodable {
        var promptTokens: Int
        var completionTokens: Int

        enum CodingKeys: String, CodingKey {
            case promptTokens = "prompt_tokens"
            case completionTokens = "completion_tokens"
        }
    }
}
