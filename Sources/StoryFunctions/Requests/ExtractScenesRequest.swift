/// `POST /functions/v1/extract-scenes` as the app sends it.
struct ExtractScenesRequest: Decodable {
    var storyContent: String
    /// A number, checked to be a whole one (JSONDecoder reports no field for a fractional `Int`).
    var targetSceneCount: Double

    enum CodingKeys: String, CodingKey {
        case storyContent = "story_content"
        case targetSceneCount = "target_scene_count"
    }
}
