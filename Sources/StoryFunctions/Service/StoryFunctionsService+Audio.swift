internal import Logging
internal import OpenAI

extension StoryFunctionsService {
    /// `audio-synthesis`: `{text, language, voice?, speed?}` → `{audio_url, duration}`.
    ///
    /// The text is split at sentence boundaries into chunks the speech endpoint takes (≤ 4096 characters), spoken
    /// with up to three calls in flight, and the MP3 parts are joined (ID3 tags and Xing frames dropped).
    /// `duration` is read from the joined stream's frames, rounded to 0.01 s. An answer that is not MP3 → 502.
    public func audioSynthesis(_ body: [UInt8], caller: Caller) async throws(FunctionError) -> [UInt8] {
        let request = try RequestDecoder.decode(AudioSynthesisRequest.self, from: body)
        let text = try FieldRules.text(request.text, "text", maximum: FunctionLimits.audioText)
        let language = try StoryLanguage.validate(request.language, "language")
        let voice = try request.voice.map { (voice) throws(FunctionError) in
            try FieldRules.oneOf(voice, "voice", allowed: AudioSynthesisRequest.voices)
        } ?? self.models.voice
        let speed = try request.speed.map { (speed) throws(FunctionError) in
            try FieldRules.number(speed, "speed", in: FunctionLimits.speed)
        } ?? 1
        try await self.moderate(text, function: "audio-synthesis")

        // tts-1 and tts-1-hd take no instructions.
        let instructions = self.models.speech.hasPrefix("tts-1") ? nil : """
            Read this children's story aloud in \(StoryLanguage.name(of: language)), warmly and calmly, \
            like a bedtime story.
            """
        let requests = SpeechChunker.chunks(text).map {
            SpeechRequest(model: self.models.speech, voice: voice, input: $0, speed: speed, instructions: instructions)
        }
        let parts = try await self.speak(requests)
        for part in parts where MP3.duration(of: part) == nil {
            throw .invalidUpstream("The speech answer is not MP3 audio.")
        }
        let audio = parts.count == 1 ? parts[0] : MP3.join(parts)
        guard let seconds = MP3.duration(of: audio) else { throw .invalidUpstream("The speech answer is not MP3 audio.") }
        let object = try await self.store(audio, contentType: "audio/mpeg", caller: caller)
        self.logger.debug("Audio synthesized", metadata: ["chunks": "\(parts.count)", "bytes": "\(audio.count)"])
        return ResponseEncoder.encode(AudioSynthesisResponse(
            audioURL: Self.mediaPath(object.key), duration: (seconds * 100).rounded() / 100
        ))
    }

    /// The speech for each request, in order, with at most `speechConcurrency` calls in flight; the first
    /// failure cancels the rest.
    func speak(_ requests: [SpeechRequest]) async throws(FunctionError) -> [[UInt8]] {
        let provider = self.provider
        let results = await withTaskGroup(of: (Int, Result<[UInt8], AIError>).self) { group in
            var results = [Result<[UInt8], AIError>?](repeating: nil, count: requests.count)
            var next = 0
            func start(_ group: inout TaskGroup<(Int, Result<[UInt8], AIError>)>) {
                let index = next
                let request = requests[index]
                next += 1
                group.addTask {
                    do throws(AIError) {
                        return (index, .success(try await provider.speech(request)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            while next < min(Self.speechConcurrency, requests.count) { start(&group) }
            while let (index, result) = await group.next() {
                results[index] = result
                if case .failure = result {
                    group.cancelAll()
                    break
                }
                if next < requests.count { start(&group) }
            }
            return results
        }
        var parts: [[UInt8]] = []
        for result in results {
            switch result {
            case .success(let bytes): parts.append(bytes)
            case .failure(let error):
                self.logger.warning("AI provider call failed", metadata: ["operation": "speech", "kind": "\(error.kind.rawValue)"])
                throw FunctionError(ai: error)
            case nil: continue  // not started or cancelled after a failure, which throws above or below
            }
        }
        guard parts.count == requests.count else { throw .invalidUpstream("A speech part is missing.") }
        return parts
    }
}
