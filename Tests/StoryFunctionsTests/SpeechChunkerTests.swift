import OpenAI
@testable import StoryFunctions
import Testing

/// Long text split at sentence boundaries into ≤ 4096-character chunks, and the parts joined.
@Suite struct SpeechChunkerTests {
    static func sentence(_ index: Int) -> String {
        "Sentence number \(index) tells how the little fox walked through the quiet forest at night."
    }

    @Test func longTextIsSplitAtSentenceBoundaries() {
        let sentences = (0..<400).map(Self.sentence)
        let text = sentences.joined(separator: " ")
        let chunks = SpeechChunker.chunks(text)
        #expect(chunks.count > 1)
        #expect(chunks.allSatisfy { $0.unicodeScalars.count <= 4096 })
        #expect(chunks.allSatisfy { $0.hasSuffix(".") && $0.hasPrefix("Sentence") })
        #expect(chunks.joined(separator: " ") == text)
        // Greedy: each chunk but the last could not take the next sentence.
        for (chunk, next) in zip(chunks, chunks.dropFirst()) {
            let firstOfNext = next.prefix { $0 != "." } + "."
            #expect(chunk.unicodeScalars.count + 1 + firstOfNext.unicodeScalars.count > 4096)
        }
    }

    @Test func shortTextIsOneChunk() {
        #expect(SpeechChunker.chunks("  Hello there. How are you?  ") == ["Hello there. How are you?"])
        #expect(SpeechChunker.chunks("   ").isEmpty)
    }

    @Test func sentencesEndAtPunctuationQuotesAndLineBreaks() {
        let parts = SentenceSplitter.sentences("He said \"Hi!\" Then left. Mr.Smith stayed…\nNew line 3.5 times? Yes").map(String.init)
        #expect(parts == ["He said \"Hi!\" ", "Then left. ", "Mr.Smith stayed…\n", "New line 3.5 times? ", "Yes"])
        #expect(SentenceSplitter.sentences("一つ。二つ！三つ").map(String.init) == ["一つ。", "二つ！", "三つ"])
    }

    @Test func overlongSentenceIsSplitAtWords() {
        let words = (0..<1500).map { "word\($0)" }
        let text = words.joined(separator: " ") + "."
        let chunks = SpeechChunker.chunks(text, limit: 4096)
        #expect(chunks.count >= 3)
        #expect(chunks.allSatisfy { $0.unicodeScalars.count <= 4096 })
        #expect(chunks.joined(separator: " ") == text)
        let noSpaces = String(repeating: "é", count: 9000)
        let hard = SpeechChunker.chunks(noSpaces, limit: 4096)
        #expect(hard.map(\.count) == [4096, 4096, 808])
    }

    @Test func multiScalarCharactersCountAsTheirScalars() {
        let family = "👨‍👩‍👧"  // one Character, five scalars
        let chunks = SpeechChunker.chunks(String(repeating: family, count: 10), limit: 12)
        #expect(chunks.allSatisfy { $0.unicodeScalars.count <= 12 })
        #expect(chunks.joined() == String(repeating: family, count: 10))
    }

    /// One character over the limit alone (a letter and 10,000 combining marks) is cut inside, by code points.
    @Test func aCharacterOverTheLimitIsCutInside() {
        let text = "Once a" + String(repeating: "\u{301}", count: 10_000) + " upon."
        let chunks = SpeechChunker.chunks(text, limit: 4096)
        #expect(chunks.allSatisfy { $0.unicodeScalars.count <= 4096 })
        #expect(chunks.map(\.unicodeScalars.count).reduce(0, +) >= text.unicodeScalars.count - 2)
        #expect(chunks.joined().unicodeScalars.filter { $0 != " " }.elementsEqual(text.unicodeScalars.filter { $0 != " " }))
    }

    @Test func longAudioIsSpokenInChunksAndJoined() async throws {
        let provider = ScriptedProvider()
        let fixture = TestFixture(provider: provider)
        defer { fixture.close() }
        let text = (0..<220).map(Self.sentence).joined(separator: " ")  // ~19,700 characters
        #expect(text.count <= 20_000)
        let response = try object(try await fixture.service.audioSynthesis(body(Bodies.audio(text)), caller: TestFixture.alice))
        let speeches = provider.calls.speech
        #expect(speeches.count == 5)
        #expect(speeches.allSatisfy { $0.input.unicodeScalars.count <= 4096 && $0.input.hasSuffix(".") })
        #expect(speeches.map(\.input).sorted() == SpeechChunker.chunks(text).sorted())
        // The joined stream has every part's frames: its duration is the sum of the parts'.
        let offline = OfflineProvider()
        var expected = 0.0
        for chunk in SpeechChunker.chunks(text) {
            expected += MP3.duration(of: try await offline.speech(SpeechRequest(model: "m", voice: "coral", input: chunk)))!
        }
        let duration = try #require(response["duration"] as? Double)
        #expect(abs(duration - expected) < 0.006)
        let words = Double(WordCounter.count(text))
        #expect(abs(duration - words / 150 * 60) < 5 * 0.036 + 0.01)
        let key = TestFixture.key(ofURL: try #require(response["audio_url"] as? String))
        let stored = try #require(try await fixture.store.read(key, range: nil))
        #expect(abs(MP3.duration(of: stored)! - expected) < 1e-6)
    }

    @Test func aFailingChunkFailsTheWholeCall() async {
        let script = ScriptedProvider.Script(speech: { request throws(AIError) in
            if request.input.contains("number 150 ") { throw AIError(.rateLimited, "slow down", retryAfter: 3) }
            return MP3.silence(seconds: 1)
        })
        let fixture = TestFixture(provider: ScriptedProvider(script))
        defer { fixture.close() }
        let text = (0..<220).map(Self.sentence).joined(separator: " ")
        let error = await expectFunctionError { () async throws(FunctionError) in
            try await fixture.service.audioSynthesis(body(Bodies.audio(text)), caller: TestFixture.alice)
        }
        #expect(error?.status == 503)
        #expect(error?.ai?.retryAfter == 3)
    }

    @Test func partsAreJoinedInTextOrder() async throws {
        // Each chunk gets frames of its own bitrate, so the joined bytes show the order of the parts.
        @Sendable func part(_ input: String) -> [UInt8] {
            let rates = [32_000, 40_000, 48_000, 56_000, 64_000, 80_000]
            let index = SpeechChunker.chunks((0..<220).map(Self.sentence).joined(separator: " ")).firstIndex(of: input) ?? 0
            let header = MP3FrameHeader(version: .mpeg1, bitrate: rates[index], sampleRate: 32_000, padding: false, mono: true)
            return MP3.silence(seconds: Double(index + 1), header: header)
        }
        let fixture = TestFixture(provider: ScriptedProvider(.init(speech: { part($0.input) })))
        defer { fixture.close() }
        let text = (0..<220).map(Self.sentence).joined(separator: " ")
        let response = try object(try await fixture.service.audioSynthesis(body(Bodies.audio(text)), caller: TestFixture.alice))
        let key = TestFixture.key(ofURL: try #require(response["audio_url"] as? String))
        let stored = try #require(try await fixture.store.read(key, range: nil))
        #expect(stored == SpeechChunker.chunks(text).flatMap(part))
        #expect(abs((response["duration"] as? Double ?? 0) - MP3.duration(of: stored)!) < 0.006)
    }
}
