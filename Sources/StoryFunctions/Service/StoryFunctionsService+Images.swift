internal import Logging
internal import OpenAI

extension StoryFunctionsService {
    /// `avatar-generation`: `{hero_id, prompt, style?, quality?, size?}` → `{image_url, generation_id, revised_prompt}`.
    ///
    /// DALL·E 3 values are mapped to the GPT image model's (`ImageOptions`); defaults: style none, quality
    /// `standard` (→ `medium`), size `1024x1024`. `revised_prompt` is the model's revision, else the prompt sent.
    /// `generation_id` is the stored PNG's media key, owned by the caller.
    public func avatarGeneration(_ body: [UInt8], caller: Caller) async throws(FunctionError) -> [UInt8] {
        let (prompt, options) = try Self.avatarInput(body)
        try await self.moderate(prompt, function: "avatar-generation")

        let sent = ImagePrompt.avatar(prompt, style: options.style)
        let image = ImageRequest(
            model: self.models.image, prompt: sent, size: options.modelSize, quality: options.modelQuality,
            safetyIdentifier: caller.safetyIdentifier
        )
        let result = try await self.ai("avatar") { () async throws(AIError) in try await self.provider.generateImage(image) }
        let object = try await self.storeImage(result, kind: .heroAvatar, caller: caller)
        let revised = result.revisedPrompt.map(\.trimmedWhitespace).flatMap { $0.isEmpty ? nil : $0 } ?? sent
        return ResponseEncoder.encode(AvatarGenerationResponse(
            imageURL: Self.mediaPath(object.key), generationID: object.key, revisedPrompt: revised
        ))
    }

    /// `scene-illustration`: `{story_id, scene_number, prompt, hero_generation_id?, style?, quality?, size?}` →
    /// `{image_url, generation_id}`.
    ///
    /// With `hero_generation_id`, the caller's stored avatar is the reference image of an `images/edits` call, so
    /// the hero looks the same in every scene; an id that is unknown, not a PNG, or another user's → 404
    /// `NOT_FOUND` (the answer does not say which). Without it, a new image is generated.
    public func sceneIllustration(_ body: [UInt8], caller: Caller) async throws(FunctionError) -> [UInt8] {
        let (sceneNumber, prompt, heroID, options) = try Self.illustrationInput(body)
        let reference = try await heroID.asyncMap { (key) async throws(FunctionError) in try await self.heroImage(key, caller: caller) }
        try await self.moderate(prompt, function: "scene-illustration")

        let sent = ImagePrompt.scene(prompt, sceneNumber: sceneNumber, style: options.style, withReference: reference != nil)
        let result: ImageResult
        if let reference {
            let edit = ImageEditRequest(
                model: self.models.image, prompt: sent, image: reference, size: options.modelSize,
                quality: options.modelQuality, safetyIdentifier: caller.safetyIdentifier
            )
            result = try await self.ai("illustration-edit") { () async throws(AIError) in try await self.provider.editImage(edit) }
        } else {
            let image = ImageRequest(
                model: self.models.image, prompt: sent, size: options.modelSize, quality: options.modelQuality,
                safetyIdentifier: caller.safetyIdentifier
            )
            result = try await self.ai("illustration") { () async throws(AIError) in try await self.provider.generateImage(image) }
        }
        let object = try await self.storeImage(result, kind: .storyIllustration, caller: caller)
        return ResponseEncoder.encode(SceneIllustrationResponse(imageURL: Self.mediaPath(object.key), generationID: object.key))
    }

    static func avatarInput(_ body: [UInt8]) throws(FunctionError) -> (prompt: String, options: ImageChoice) {
        let request = try RequestDecoder.decode(AvatarGenerationRequest.self, from: body)
        _ = try FieldRules.text(request.heroID, "hero_id", maximum: FunctionLimits.identifier)
        let prompt = try FieldRules.text(request.prompt, "prompt", maximum: FunctionLimits.prompt)
        return (prompt, try ImageChoice(style: request.style, quality: request.quality, size: request.size))
    }

    static func illustrationInput(_ body: [UInt8]) throws(FunctionError) -> (sceneNumber: Int, prompt: String, heroID: String?, options: ImageChoice) {
        let request = try RequestDecoder.decode(SceneIllustrationRequest.self, from: body)
        _ = try FieldRules.text(request.storyID, "story_id", maximum: FunctionLimits.identifier)
        let sceneNumber = try FieldRules.integer(request.sceneNumber, "scene_number", in: FunctionLimits.sceneNumber)
        let prompt = try FieldRules.text(request.prompt, "prompt", maximum: FunctionLimits.prompt)
        let heroID = try FieldRules.optionalText(request.heroGenerationID, "hero_generation_id", maximum: FunctionLimits.identifier)
        return (sceneNumber, prompt, heroID, try ImageChoice(style: request.style, quality: request.quality, size: request.size))
    }

    /// The caller's stored avatar PNG, or 404 whatever the reason.
    func heroImage(_ key: String, caller: Caller) async throws(FunctionError) -> [UInt8] {
        let notFound = FunctionError.notFound(field: "hero_generation_id")
        do {
            // Owners compare as bytes: `String`'s `==` is canonical equivalence, and "é" as one scalar and as
            // e + U+0301 are two uids.
            guard let object = try await self.media.metadata(key), object.owner.utf8.elementsEqual(self.media.ownerTag(caller.uid).utf8),
                  object.contentType == "image/png",
                  let bytes = try await self.media.read(key, range: nil), PNG.isPNG(bytes) else { throw notFound }
            return bytes
        } catch let error as FunctionError {
            throw error
        } catch {
            throw .storage
        }
    }

    func storeImage(_ result: ImageResult, kind: MediaKind, caller: Caller) async throws(FunctionError) -> MediaObject {
        guard PNG.isPNG(result.png) else { throw .invalidUpstream("The image answer is not a PNG.") }
        return try await self.store(result.png, contentType: "image/png", kind: kind, caller: caller)
    }
}

/// The validated `style`, `quality` and `size` of an image request, and what the image model is sent.
struct ImageChoice {
    var style: String
    var quality: String
    var size: String

    init(style: String?, quality: String?, size: String?) throws(FunctionError) {
        self.style = try Self.pick(style, "style", ImageOptions.styles) ?? "none"
        self.quality = try Self.pick(quality, "quality", ImageOptions.qualities) ?? "standard"
        self.size = try Self.pick(size, "size", ImageOptions.sizes) ?? "1024x1024"
    }

    var modelQuality: String { ImageOptions.quality(self.quality) }
    var modelSize: String { ImageOptions.size(self.size) }

    private static func pick(_ value: String?, _ field: String, _ allowed: [String]) throws(FunctionError) -> String? {
        guard let value else { return nil }
        return try FieldRules.oneOf(value, field, allowed: allowed)
    }
}

extension Optional {
    func asyncMap<Mapped, Failure: Error>(_ transform: (Wrapped) async throws(Failure) -> Mapped) async throws(Failure) -> Mapped? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
