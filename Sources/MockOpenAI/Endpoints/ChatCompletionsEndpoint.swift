import OpenAI

/// `POST /v1/chat/completions` with structured output: the first system (or developer) message and the first
/// user message, `response_format.json_schema` (`name`, `schema`), `safety_identifier` and
/// `max_completion_tokens` go to ``AIProvider/structuredChat(_:)``.
enum ChatCompletionsEndpoint {
    static func answer(_ body: [UInt8], _ context: EndpointContext) async throws(MockAPIError) -> MockAnswer {
        let request = try self.request(body)
        do throws(AIError) {
            let result = try await context.provider.structuredChat(request)
            let content = String(decoding: result.json, as: UTF8.self)
            return self.completion(
                model: request.model, content: .string(content), refusal: .null, usage: (result.promptTokens, result.completionTokens), context
            )
        } catch {
            guard error.kind == .contentPolicy else { throw .provider(error.kind.rawValue) }
            return self.refusal(model: request.model, context)
        }
    }

    /// A `200` whose message has `content: null` and a refusal, as the API answers when the model refuses.
    static func refusal(model: String, _ context: EndpointContext) -> MockAnswer {
        self.completion(model: model, content: .null, refusal: .string("I'm sorry, I can't help with that request."), usage: (0, 0), context)
    }

    static func request(_ bytes: [UInt8]) throws(MockAPIError) -> StructuredChatRequest {
        let body = try JSONRequestBody(bytes)
        let model = try body.string("model")
        guard let messages = body["messages"]?.arrayValue else {
            throw body["messages"] == nil
                ? .invalidRequest("Missing required parameter: 'messages'.", param: "messages")
                : .invalidRequest("Invalid type for 'messages': expected an array.", param: "messages")
        }
        var system: String?
        var user: String?
        for (index, message) in messages.enumerated() {
            guard let role = message["role"]?.stringValue else {
                throw .invalidRequest("Missing required parameter: 'messages[\(index)].role'.", param: "messages[\(index)].role")
            }
            guard let content = self.text(of: message["content"]) else {
                throw .invalidRequest("Invalid 'messages[\(index)].content': expected a string or text parts.", param: "messages[\(index)].content")
            }
            if role == "system" || role == "developer", system == nil { system = content }
            if role == "user", user == nil { user = content }
        }
        guard let user else { throw .invalidRequest("'messages' must contain a user message.", param: "messages") }
        guard let format = body["response_format"] else {
            throw .invalidRequest("The mock serves structured outputs only: 'response_format' is required.", param: "response_format")
        }
        guard format["type"]?.stringValue == "json_schema", let jsonSchema = format["json_schema"], jsonSchema.isObject else {
            throw .invalidRequest("Invalid 'response_format': expected type 'json_schema' with a 'json_schema' object.", param: "response_format")
        }
        guard let name = jsonSchema["name"]?.stringValue, !name.isEmpty else {
            throw .invalidRequest("Missing required parameter: 'response_format.json_schema.name'.", param: "response_format.json_schema.name")
        }
        guard let schema = jsonSchema["schema"], schema.isObject else {
            throw .invalidRequest("Invalid 'response_format.json_schema.schema': expected an object.", param: "response_format.json_schema.schema")
        }
        let safetyIdentifier = try body.optionalString("safety_identifier")
        let endUser = try body.optionalString("user")
        return StructuredChatRequest(
            model: model, system: system ?? "", user: user, schemaName: name, schemaJSON: schema.text,
            safetyIdentifier: safetyIdentifier ?? endUser ?? "",
            maxCompletionTokens: try body.optionalInteger("max_completion_tokens")
        )
    }

    /// A message's content: a string, or the concatenated `text` of its text parts.
    private static func text(of content: JSONValue?) -> String? {
        switch content {
        case .string(let text)?: return text
        case .array(let parts)?:
            let texts = parts.compactMap { $0["text"]?.stringValue }
            return texts.count == parts.count ? texts.joined(separator: "\n") : nil
        default: return nil
        }
    }

    private static func completion(
        model: String, content: JSONValue, refusal: JSONValue, usage: (prompt: Int, completion: Int), _ context: EndpointContext
    ) -> MockAnswer {
        .json(.object([
            "id": .string("chatcmpl-mock\(context.sequence)"),
            "object": .string("chat.completion"),
            "created": .number(Double(context.now)),
            "model": .string(model),
            "choices": .array([
                .object([
                    "index": .number(0),
                    "message": .object(["role": .string("assistant"), "content": content, "refusal": refusal, "annotations": .array([])]),
                    "logprobs": .null,
                    "finish_reason": .string("stop"),
                ])
            ]),
            "usage": .object([
                "prompt_tokens": .number(Double(usage.prompt)),
                "completion_tokens": .number(Double(usage.completion)),
                "total_tokens": .number(Double(usage.prompt + usage.completion)),
            ]),
        ]))
    }
}
