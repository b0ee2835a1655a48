/// The `POST /audio/speech` body (`CreateSpeechRequest`, a closed schema: it has no end-user field).
struct SpeechBody: Encodable {
    var model: String
    var input: String
    var voice: String
    var responseFormat = "mp3"
    var speed: Double
    /// Omitted when `nil`, and for `tts-1` models, which do not take it.
    var instructions: String?

    enum CodingKeys: String, CodingKey {
        case model
        case input
        case voice
        case responseFormat = "response_format"
        case speed
        case instructions
    }

    init(_ request: SpeechRequest) {
        self.model = request.model
        self.input = request.input
        self.voice = request.voice
        self.speed = request.speed
        let takesInstructions = !request.model.hasPrefix("tts-1")
        if let instructions = request.instructions, !instructions.isEmpty, takesInstructions {
            self.instructions = instructions
        }
    }
}
