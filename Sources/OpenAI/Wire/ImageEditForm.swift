/// The `POST /images/edits` body (`CreateImageEditRequest`) as `multipart/form-data`: the reference
/// image as a PNG file part `image`, and `prompt`, `model`, `size`, `quality`, `output_format`
/// (GPT image models) and `user` (the hashed end-user id; the document has no `safety_identifier` here).
/// `n` is left at its default of 1 (a form field is text, while the document types `n` as an integer).
enum ImageEditForm {
    /// The form's body and its `Content-Type`.
    static func make(_ request: ImageEditRequest, boundary: String = MultipartFormData.randomBoundary()) -> (body: [UInt8], contentType: String) {
        var boundary = boundary
        while Self.contains(request.image, Array(boundary.utf8)) {
            boundary = MultipartFormData.randomBoundary()
        }
        var form = MultipartFormData(boundary: boundary)
        form.addFile("image", filename: "image.png", contentType: "image/png", data: request.image)
        form.addField("prompt", request.prompt)
        form.addField("model", request.model)
        form.addField("size", request.size)
        form.addField("quality", request.quality)
        if ImageModels.takesOutputFormat(request.model) {
            form.addField("output_format", "png")
        }
        if !request.safetyIdentifier.isEmpty {
            form.addField("user", request.safetyIdentifier)
        }
        return (form.finished(), form.contentType)
    }

    private static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }
}
