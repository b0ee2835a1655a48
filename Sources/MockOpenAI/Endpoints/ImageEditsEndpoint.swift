import OpenAI

/// `POST /v1/images/edits`, `multipart/form-data`: the `image` (or first `image[]`) file part and the text
/// fields `prompt`, `model`, `size`, `quality`, `safety_identifier` or `user` go to ``AIProvider/editImage(_:)``.
enum ImageEditsEndpoint {
    static func answer(_ bytes: [UInt8], contentType: String?, _ context: EndpointContext) async throws(MockAPIError) -> MockAnswer {
        let request = try self.request(bytes, contentType: contentType)
        do throws(AIError) {
            return ImageAnswer.answer(try await context.provider.editImage(request), context)
        } catch {
            throw ImageAnswer.error(error)
        }
    }

    static func request(_ bytes: [UInt8], contentType: String?) throws(MockAPIError) -> ImageEditRequest {
        guard let contentType, let boundary = MultipartParser.boundary(contentType: contentType) else {
            throw .invalidRequest("Invalid Content-Type: expected multipart/form-data with a boundary.")
        }
        let parts: [MultipartPart]
        do throws(MultipartParser.Failure) {
            parts = try MultipartParser.parse(bytes, boundary: boundary)
        } catch {
            throw .invalidRequest("Could not parse the multipart form: \(error.reason).")
        }
        func field(_ name: String) -> String? {
            parts.first { $0.name == name && $0.filename == nil }.map(\.text).flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let image = parts.first(where: { $0.name == "image" || $0.name == "image[]" }), !image.body.isEmpty else {
            throw .invalidRequest("Missing required parameter: 'image'.", param: "image")
        }
        guard let prompt = field("prompt") else { throw .invalidRequest("Missing required parameter: 'prompt'.", param: "prompt") }
        return ImageEditRequest(
            model: field("model") ?? "gpt-image-1",
            prompt: prompt,
            image: image.body,
            size: field("size") ?? "auto",
            quality: field("quality") ?? "auto",
            safetyIdentifier: field("safety_identifier") ?? field("user") ?? ""
        )
    }
}
