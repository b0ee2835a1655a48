/// The `POST /images/generations` body (`CreateImageRequest`) for the GPT image models.
///
/// The end-user id goes in `user`: the API description has no `safety_identifier` on this endpoint
/// (the openai Python client takes both and prefers `safety_identifier`; `user` is the one both accept).
/// Never `response_format` or `style`: GPT image models reject them and always answer `b64_json`.
struct ImageGenerationBody: Encodable {
    var model: String
    var prompt: String
    var n = 1
    var size: String
    var quality: String
    /// `png`, for GPT image models (which take `output_format`); omitted for others.
    var outputFormat: String?
    /// The hashed end-user id; omitted when empty.
    var user: String?

    enum CodingKeys: String, CodingKey {
        case model
        case prompt
        case n
        case size
        case quality
        case outputFormat = "output_format"
        case user
    }

    init(_ request: ImageRequest) {
        self.model = request.model
        self.prompt = request.prompt
        self.size = request.size
        self.quality = request.quality
        self.outputFormat = ImageModels.takesOutputFormat(request.model) ? "png" : nil
        self.user = request.safetyIdentifier.isEmpty ? nil : request.safetyIdentifier
    }
}

/// Facts about image model names.
enum ImageModels {
    /// GPT image models (`gpt-image-*`, `chatgpt-image-*`) take `output_format`; DALL·E did not.
    static func takesOutputFormat(_ model: String) -> Bool {
        model.hasPrefix("gpt-image") || model.hasPrefix("chatgpt-image")
    }
}
