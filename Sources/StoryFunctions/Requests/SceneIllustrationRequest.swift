/// `POST /functions/v1/scene-illustration` as the app sends it. `style` is optional (no style sentence);
/// `quality` and `size` are accepted as for avatars (defaults `standard`, `1024x1024`, as `ImageChoice` applies them).
struct SceneIllustrationRequest: Decodable {
    var storyID: String
    /// A number, checked to be a whole one.
    var sceneNumber: Double
    var prompt: String
    var heroGenerationID: String?
    var style: String?
    var quality: String?
    var size: String?

    enum CodingKeys: String, CodingKey {
        case prompt, style, quality, size
        case storyID = "story_id"
        case sceneNumber = "scene_number"
        case heroGenerationID = "hero_generation_id"
    }
}
