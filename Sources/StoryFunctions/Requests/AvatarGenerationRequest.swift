/// `POST /functions/v1/avatar-generation` as the app sends it. `style`, `quality` and `size` are optional
/// (defaults: no style sentence, `standard`, `1024x1024`, as `ImageChoice` applies them).
struct AvatarGenerationRequest: Decodable {
    var heroID: String
    var prompt: String
    var style: String?
    var quality: String?
    var size: String?

    enum CodingKeys: String, CodingKey {
        case prompt, style, quality, size
        case heroID = "hero_id"
    }
}
