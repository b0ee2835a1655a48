/// The prompts sent to the image model.
enum ImagePrompt {
    static func avatar(_ prompt: String, style: String) -> String {
        var parts = ["A character portrait of the hero of a children's story: \(prompt)"]
        if let sentence = ImageOptions.styleSentence(style) { parts.append(sentence) }
        parts.append(ChildSafety.imageSentence)
        return parts.joined(separator: "\n")
    }

    static func scene(_ prompt: String, sceneNumber: Int, style: String, withReference: Bool) -> String {
        var parts = ["Illustration of scene \(sceneNumber) of a children's story: \(prompt)"]
        if withReference {
            parts.append("The hero must look exactly like the character in the reference image: same face, hair, clothes and colours.")
        }
        if let sentence = ImageOptions.styleSentence(style) { parts.append(sentence) }
        parts.append(ChildSafety.imageSentence)
        return parts.joined(separator: "\n")
    }
}
