/// The `POST /chat/completions` body (`CreateChatCompletionRequest`): a system and a user message and
/// strict structured output. Never `temperature` or `max_tokens` (gpt-5 and the o-series reject them).
struct ChatCompletionBody: Encodable {
    var model: String
    var messages: [Message]
    var responseFormat: ResponseFormat
    /// Omitted when `nil`.
    var maxCompletionTokens: Int?
    /// The hashed end-user id; omitted when `nil`.
    var safetyIdentifier: String?

    enum CodingKeys: String, CodingKey {
        case model
        case messages
        case responseFormat = "response_format"
        case maxCompletionTokens = "max_completion_tokens"
        case safetyIdentifier = "safety_identifier"
    }

    /// `ChatCompletionRequestSystemMessage` / `ChatCompletionRequestUserMessage` with text content.
    struct Message: Encodable {
        var role: String
        var content: String
    }

    /// `ResponseFormatJsonSchema`: `{type: "json_schema", json_schema: {name, strict, schema}}`.
    struct ResponseFormat: Encodable {
        var type = "json_schema"
        var jsonSchema: JSONSchema

        enum CodingKeys: String, CodingKey {
            case type
            case jsonSchema = "json_schema"
        }
    }

    struct JSONSchema: Encodable {
        var name: String
        var strict = true
        /// Encoded as a placeholder string that ``JSONBody`` replaces with the schema's own JSON text.
        var schema: RawJSONPlaceholder
    }

    init(_ request: StructuredChatRequest, schema: RawJSONPlaceholder) {
        self.model = request.model
        self.messages = [
            Message(role: "system", content: request.system),
            Message(role: "user", content: request.user),
        ]
        self.responseFormat = ResponseFormat(jsonSchema: JSONSchema(name: request.schemaName, schema: schema))
        self.maxCompletionTokens = request.maxCompletionTokens
        self.safetyIdentifier = request.safetyIdentifier.isEmpty ? nil : request.safetyIdentifier
    }
}
