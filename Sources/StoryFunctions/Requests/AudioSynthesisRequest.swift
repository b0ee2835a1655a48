/// `POST /functions/v1/audio-synthesis` as the app sends it.
struct AudioSynthesisRequest: Decodable {
    var text: String
    var language: String
    var voice: String?
    var speed: Double?

    /// The built-in voices of `audio/speech` (`CreateSpeechRequest.voice` in the OpenAI API description).
    static let voices = [
        "alloy", "ash", "ballad", "coral", "echo", "fable", "onyx", "nova", "sage", "shimmer", "verse", "marin", "cedar",
    ]
}
