import OpenAI

/// `POST /v1/audio/speech`: `model`, `input` (at most 4096 characters), `voice`, `speed` (0.25 to 4.0) and
/// `instructions` go to ``AIProvider/speech(_:)``; the answer is `audio/mpeg`.
enum SpeechEndpoint {
    static func answer(_ bytes: [UInt8], _ context: EndpointContext) async throws(MockAPIError) -> MockAnswer {
        let request = try self.request(bytes)
        do throws(AIError) {
            return MockAnswer(contentType: "audio/mpeg", body: try await context.provider.speech(request))
        } catch {
            throw error.kind == .contentPolicy ? .contentPolicy : .provider(error.kind.rawValue)
        }
    }

    static func request(_ bytes: [UInt8]) throws(MockAPIError) -> SpeechRequest {
        let body = try JSONRequestBody(bytes)
        let model = try body.string("model")
        let input = try body.string("input")
        guard input.count <= 4096 else {
            throw .invalidRequest("Invalid 'input': string too long. Expected a string with maximum length 4096.", param: "input")
        }
        let voice = try body.string("voice")
        let speed = try body.optionalNumber("speed") ?? 1
        guard (0.25...4).contains(speed) else {
            throw .invalidRequest("Invalid 'speed': expected a number between 0.25 and 4.0.", param: "speed")
        }
        if let format = try body.optionalString("response_format"), format != "mp3" {
            throw .invalidRequest("The mock answers 'response_format' mp3 only.", param: "response_format")
        }
        return SpeechRequest(model: model, voice: voice, input: input, speed: speed, instructions: try body.optionalString("instructions"))
    }
}
