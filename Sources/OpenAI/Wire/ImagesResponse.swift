/// The parts of an `ImagesResponse` the client reads.
struct ImagesResponse: Decodable {
    var data: [Image]?

    struct Image: Decodable {
        var b64JSON: String?
        var revisedPrompt: String?

        enum CodingKeys: String, CodingKey {
            case b64JSON = "b64_json"
            case revisedPrompt = "revised_prompt"
        }
    }
}
