/// Reading a chat completion into a ``StructuredChatResult``.
enum ChatCompletionDecoding {
    /// The first choice's content, which must be a JSON object; a `refusal` or `finish_reason`
    /// `content_filter` → `contentPolicy`; anything else unreadable → `invalidResponse`.
    static func result(_ body: [UInt8]) throws(AIError) -> StructuredChatResult {
        let response = try ResponseDecoding.decode(ChatCompletionResponse.self, from: body)
        guard let choice = response.choices.first else {
            throw AIError(.invalidResponse, "The provider's answer had no choices.")
        }
        if let refusal = choice.message?.refusal, !refusal.isEmpty {
            throw AIError(.contentPolicy, "The provider refused the content.")
        }
        if choice.finishReason == "content_filter" {
            throw AIError(.contentPolicy, "The provider refused the content.")
        }
        guard let content = choice.message?.content else {
            throw AIError(.invalidResponse, "The provider's answer had no content.")
        }
        let json = Array(content.utf8)
        guard ResponseDecoding.isJSONObject(json) else {
            throw AIError(.invalidResponse, "The provider's answer was not a JSON object.")
        }
        return StructuredChatResult(
            json: json,
            promptTokens: response.usage?.promptTokens ?? 0,
            completionTokens: response.usage?.completionTokens ?? 0
        )
    }
}

/// Reading an `ImagesResponse` into an ``ImageResult``.
enum ImageDecoding {
    /// `data[0].b64_json` decoded, which must be a PNG, and `revised_prompt` if present.
    static func result(_ body: [UInt8]) throws(AIError) -> ImageResult {
        let response = try ResponseDecoding.decode(ImagesResponse.self, from: body)
        guard let image = response.data?.first, let base64 = image.b64JSON else {
            throw AIError(.invalidResponse, "The provider's answer had no image.")
        }
        guard let png = ResponseDecoding.base64(base64), MediaSignature.isPNG(png) else {
            throw AIError(.invalidResponse, "The provider's image could not be read.")
        }
        let revised = image.revisedPrompt.flatMap { $0.isEmpty ? nil : $0 }
        return ImageResult(png: png, revisedPrompt: revised)
    }
}
