/// `POST /functions/v1/extract-scenes` as the app sends it.
struct ExtractScenesRequest: Decodable {
    var storyContent: String
    var targetSceneCount: Int

    enum CodingKeys: String, CodingKey {
        case storyContent = "story_content"
        case targetSceneCount = "target_scene_count"
    }
}
