extension RateLimit {
    /// 10 stories per hour.
    public static let storyGeneration = RateLimit(name: "story-generation", capacity: 10, period: 3600)
    /// 15 narrations per hour.
    public static let audioSynthesis = RateLimit(name: "audio-synthesis", capacity: 15, period: 3600)
    /// 8 avatars per hour.
    public static let avatarGeneration = RateLimit(name: "avatar-generation", capacity: 8, period: 3600)
    /// 25 illustrations per hour.
    public static let sceneIllustration = RateLimit(name: "scene-illustration", capacity: 25, period: 3600)
    /// 30 scene extractions per hour.
    public static let extractScenes = RateLimit(name: "extract-scenes", capacity: 30, period: 3600)

    /// The embedded defaults, one per AI endpoint, all enforced (not shadow).
    public static let defaults: [RateLimit] = [
        .storyGeneration, .audioSynthesis, .avatarGeneration, .sceneIllustration, .extractScenes,
    ]
}
