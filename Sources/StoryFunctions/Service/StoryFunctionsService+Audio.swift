internal import Logging
internal import OpenAI

extension StoryFunctionsService {
    /// `audio-synthesis`: `{text, language, voice?, speed?}` → `{audio_url, duration}`.
    ///
    /// The text is split at sentence boundaries into chunks the speech endpoint takes (≤ 4096 characters), spoken
    /// with up to three calls in flight, and the MP3 parts are joined (ID3 tags and Xing frames dropped).
    /// `duration` is read from the joined stream's frames, rounded to 0.01 s. An answer that is not MP3 → 502.
    public func audioSynthesis(_ body: [UInt8], caller: Caller) async throws(FunctionError) -> [UInt8] {
        let input = try AudioInput(body)
        let (text, language, voice, speed) = (input.text, input.language, input.voice ?? self.models.voice, input.speed)
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
        let object = try await self.store(audio, contentType: "audio/mpeg", kind: .storyAudio, caller: caller)
        self.logger.debug("Audio synthesized", metadata: ["chunks": .stringConvertible(parts.count), "bytes": .stringConvertible(audio.count)])
        return ResponseEncoder.encode(AudioSynthesisResponse(
            audioURL: Self.mediaPath(object.key), duration: (seconds * 100).rounded() / 100
        ))
    }

    /// The speech for each request, in order, with at most `speechConcurrency` calls in flight; the first
    /// failure cancels the rest.
    ///
    /// Written plainly on purpose: the first version (a nested function starting tasks that returned a tuple from
    /// a `do throws(AIError)` block) was miscompiled in release builds by Swift 6.3.1 — the index a child task
    /// returned was garbage and the process trapped on most requests. `scripts/test.sh` runs this code as built for
    /// production too (the release step).
    func speak(_ requests: [SpeechRequest]) async throws(FunctionError) -> [[UInt8]] {
        let provider = self.provider
        let results = await withTaskGroup(of: SpeechPart.self) { group in
            var results = [Result<[UInt8], AIError>?](repeating: nil, count: requests.count)
            var next = 0
            var inFlight = 0
            while next < requests.count || inFlight > 0 {
                while next < requests.count, inFlight < Self.speechConcurrency {
                    let (index, request) = (next, requests[next])
                    group.addTask { await SpeechPart.speak(request, index: index, provider: provider) }
                    next += 1
                    inFlight += 1
                }
                guard let part = await group.next() else { break }
                inFlight -= 1
                results[part.index] = part.result
                if case .failure = part.result {
                    group.cancelAll()
                    break
                }
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

/// A chunk's place in the text and, once spoken, its audio or the error.
struct SpeechPart: Sendable {
    let index: Int
    let result: Result<[UInt8], AIError>

    static func speak(_ request: SpeechRequest, index: Int, provider: any AIProvider) async -> SpeechPart {
        let result: Result<[UInt8], AIError>
        do {
            result = .success(try await provider.speech(request))
        } catch {
            result = .failure(error)
        }
        return SpeechPart(index: index, result: result)
    }
}
