/// The strict JSON Schemas of the structured-output calls: every object has `additionalProperties: false` and
/// lists all its properties in `required` (no length or count keywords: counts are asked for in the prompt and
/// checked on the answer).
enum StructuredSchemas {
    static let storyName = "story"
    static let scenesName = "scenes"

    private static let scene = """
        {"type":"object","additionalProperties":false,"required":["number","content","visualization_prompt"],\
        "properties":{"number":{"type":"integer","description":"1 for the first scene, then 2, 3, ..."},\
        "content":{"type":"string","description":"The passage of the story this scene covers."},\
        "visualization_prompt":{"type":"string","description":"For the illustrator, in English: setting, characters, action, mood."}}}
        """

    static let story = """
        {"type":"object","additionalProperties":false,"required":["title","content","scenes"],\
        "properties":{"title":{"type":"string"},"content":{"type":"string","description":"The whole story text."},\
        "scenes":{"type":"array","items":\(scene)}}}
        """

    static let scenes = """
        {"type":"object","additionalProperties":false,"required":["scenes"],\
        "properties":{"scenes":{"type":"array","items":\(scene)}}}
        """
}
