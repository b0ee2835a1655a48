import OpenAI

/// `POST /v1/images/generations`: `model` (default `gpt-image-1`), `prompt`, `size` and `quality` (default `auto`),
/// and `safety_identifier` or `user` go to ``AIProvider/generateImage(_:)``.
enum ImageGenerationsEndpoint {
    static func answer(_ bytes: [UInt8], _ context: EndpointContext) async throws(MockAPIError) -> MockAnswer {
        let request = try self.request(bytes)
        do throws(AIError) {
            return ImageAnswer.answer(try await context.provider.generateImage(request), context)
        } catch {
            throw ImageAnswer.error(error)
        }
    }

    static func request(_ bytes: [UInt8]) throws(MockAPIError) -> ImageRequest {
        let body = try JSONRequestBody(bytes)
        let prompt = try body.string("prompt")
        if let n = try body.optionalInteger("n"), !(1...10).contains(n) {
            throw .invalidRequest("Invalid 'n': expected an integer between 1 and 10.", param: "n")
        }
        let safetyIdentifier = try body.optionalString("safety_identifier")
        let endUser = try body.optionalString("user")
        return ImageRequest(
            model: try body.optionalString("model") ?? "gpt-image-1",
            prompt: prompt,
            size: try body.optionalString("size") ?? "auto",
            quality: try body.optionalString("quality") ?? "auto",
            safetyIdentifier: safetyIdentifier ?? endUser ?? ""
        )
    }
}
