import Foundation
import OpenAI
@testable import StoryFunctions
import Testing

/// The offline provider is worth looking at and listening to: a story about the hero the prompt describes, in
/// whole sentences; pictures of the size asked for; speech that is a real, audible MP3 of the text's length.
@Suite struct OfflineProviderTests {
    static let hero = ValidStoryRequest.Hero(
        name: "Mila", primaryTrait: "brave", secondaryTrait: "curious", appearance: "curly red hair and a green raincoat",
        specialAbility: "talks to birds", age: 7
    )

    static func story(words: Int, event: ValidStoryRequest.Event = .custom(.init(title: "The lost kite", description: "A kite is stuck.", keywords: [])))
        async throws -> StoryBody
    {
        var prompt = StoryPrompt(hero: Self.hero, event: event, language: "en", targetDuration: 120)
        prompt.targetDuration = Double(words) / FunctionLimits.wordsPerMinute * 60
        let request = StructuredChatRequest(
            model: "m", system: prompt.system, user: prompt.user, schemaName: StructuredSchemas.storyName,
            schemaJSON: StructuredSchemas.story, safetyIdentifier: "x"
        )
        let result = try await OfflineProvider().structuredChat(request)
        return try JSONDecoder().decode(StoryBody.self, from: Data(result.json))
    }

    // MARK: Story

    @Test func theStoryIsAboutTheHeroAndTheEvent() async throws {
        let story = try await Self.story(words: 300)
        #expect(story.title.contains("Mila"))
        #expect(story.content.contains("Once upon a time there was a brave and curious hero named Mila."))
        #expect(story.content.contains("curly red hair and a green raincoat"))
        #expect(story.content.contains("\"The lost kite\""))
        #expect(story.content.components(separatedBy: "Mila").count > 4)
        #expect(story.scenes.allSatisfy { $0.visualizationPrompt.contains("Mila, with curly red hair") })
        let builtIn = try await Self.story(words: 200, event: .builtIn("First day at school"))
        #expect(builtIn.content.contains("\"First day at school\""))
    }

    @Test("exactly the words asked for, every sentence whole", arguments: Array(1...40) + [57, 150, 300, 751])
    func wholeSentences(words: Int) async throws {
        let story = try await Self.story(words: words)
        #expect(WordCounter.count(story.content) == words)
        let sentences = SentenceSplitter.sentences(story.content).map { String($0).trimmedWhitespace }.filter { !$0.isEmpty }
        for sentence in sentences {
            #expect(sentence.hasSuffix(".") || sentence.hasSuffix(".\""), "\(sentence)")
            #expect(sentence.first?.isUppercase == true, "\(sentence)")
            // The old writer cut sentences short ("A brave hero found a.").
            for dangling in [" a.", " the.", " and.", " to.", " of.", " with."] { #expect(!sentence.hasSuffix(dangling), "\(sentence)") }
        }
        #expect(story.content.hasSuffix("."))
    }

    // MARK: Images

    @Test("images have the size asked for", arguments: [("1024x1024", 1024, 1024), ("1536x1024", 1536, 1024), ("1024x1536", 1024, 1536), ("auto", 1024, 1024)])
    func imageSize(size: String, width: Int, height: Int) async throws {
        let provider = OfflineProvider()
        let image = try await provider.generateImage(ImageRequest(model: "m", prompt: "a fox", size: size, quality: "auto", safetyIdentifier: "x"))
        #expect(PNG.size(of: image.png)?.width == width)
        #expect(PNG.size(of: image.png)?.height == height)
        #expect(image.png.count < 200_000, "a flat picture compresses: \(image.png.count) bytes")
        let edit = try await provider.editImage(
            ImageEditRequest(model: "m", prompt: "a fox", image: image.png, size: size, quality: "auto", safetyIdentifier: "x")
        )
        #expect(PNG.size(of: edit.png)?.width == width)
    }

    @Test("the run-length deflate's Adler-32 in closed form equals the byte-by-byte one")
    func adlerOfRuns() {
        var closed = Adler32()
        var bytes: [UInt8] = []
        for (index, run) in [(0, 0, 0, 1), (255, 255, 255, 5000), (1, 2, 3, 7), (200, 10, 77, 40_000), (9, 9, 9, 0)].enumerated() {
            closed.add(UInt8(index))
            bytes.append(UInt8(index))
            closed.add(repeating: (UInt8(run.0), UInt8(run.1), UInt8(run.2)), times: run.3)
            for _ in 0..<run.3 { bytes += [UInt8(run.0), UInt8(run.1), UInt8(run.2)] }
        }
        #expect(closed.value == Checksums.adler32(bytes))
    }

    @Test(.enabled(if: PNGZlibCrossCheckTests.python != nil), arguments: [(1, 1), (3, 700), (1024, 1024), (1536, 1024)])
    func pythonZlibDecodesThePicture(width: Int, height: Int) throws {
        let picture = OfflinePicture(width: width, height: height, seed: 42)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("picture-\(UUID().uuidString).png")
        try Data(picture.png()).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        // The decoded rows must be the runs the picture describes: compare a digest of the expected rows.
        var expected: [UInt8] = []
        for y in 0..<height {
            expected.append(0)
            for run in picture.runs(row: y) { for _ in 0..<run.count { expected += [run.colour.red, run.colour.green, run.colour.blue] } }
        }
        let script = """
            import struct, sys, zlib
            data = open(sys.argv[1], 'rb').read()
            pos, idat = 8, b''
            while pos < len(data):
                n, = struct.unpack('>I', data[pos:pos+4]); kind = data[pos+4:pos+8]; body = data[pos+8:pos+8+n]
                assert zlib.crc32(kind + body) & 0xffffffff == struct.unpack('>I', data[pos+8+n:pos+12+n])[0], kind
                if kind == b'IHDR': w, h = struct.unpack('>II', body[:8])
                if kind == b'IDAT': idat += body
                pos += 12 + n
            raw = zlib.decompress(idat)
            print(w, h, len(raw), zlib.crc32(raw) & 0xffffffff)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PNGZlibCrossCheckTests.python!)
        process.arguments = ["-c", script, file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == "\(width) \(height) \(expected.count) \(Checksums.crc32(expected))")
    }

    // MARK: Speech

    /// `part2_3_length` of each granule: the bits of Huffman-coded audio a frame carries (0 in a silent frame).
    static func audioBits(_ bytes: [UInt8]) -> [Int] {
        MP3.frames(in: bytes).map { frame in
            let side = Array(bytes[(frame.range.lowerBound + 4)...])
            // MPEG-1 mono side information: main_data_begin (9), private (5), scfsi (4), then part2_3_length (12).
            let bits = side.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            return (bits >> (32 - 18 - 12)) & 0xFFF
        }
    }

    @Test("speech is real MP3 frames carrying audio, as long as the text takes to read")
    func speechFrames() async throws {
        let words = (0..<300).map { _ in "word" }.joined(separator: " ")
        let speech = try await OfflineProvider().speech(SpeechRequest(model: "m", voice: "coral", input: words))
        let duration = try #require(MP3.duration(of: speech))
        #expect(abs(duration - 120) < 0.04)
        #expect(MP3.frames(in: speech).allSatisfy { $0.header == MP3.silenceHeader })
        #expect(Self.audioBits(speech).allSatisfy { $0 > 0 })
        #expect(Self.audioBits(MP3.silence(seconds: 1)).allSatisfy { $0 == 0 })
        let fast = try await OfflineProvider().speech(SpeechRequest(model: "m", voice: "coral", input: words, speed: 2))
        #expect(abs(MP3.duration(of: fast)! - 60) < 0.04)
    }

    static let mpg123 = ["/usr/bin/mpg123", "/usr/local/bin/mpg123"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Decoded by mpg123 (scripts/setup.sh installs it): a soft tone, never silent for long, never clipping.
    @Test(.enabled(if: mpg123 != nil, "mpg123 is not installed"))
    func speechIsAudible() async throws {
        let speech = try await OfflineProvider().speech(SpeechRequest(model: "m", voice: "coral", input: "One two three four five six seven eight nine ten."))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("speech-\(UUID().uuidString).mp3")
        try Data(speech).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.mpg123!)
        process.arguments = ["-q", "-s", file.path]  // raw signed 16-bit samples on standard output
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let raw = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let samples = raw.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        // 10 words at 150 a minute: 4 s of 32 kHz audio.
        #expect(abs(samples.count - 4 * 32_000) < 2 * 1152)
        let peak = samples.map { abs(Int($0)) }.max() ?? 0
        #expect(peak > 3000 && peak < 20_000, "peak \(peak)")
        // Every tenth of a second past the decoder's first frame has sound.
        for start in stride(from: 1152, to: samples.count - 3200, by: 3200) {
            let window = samples[start..<(start + 3200)].map { abs(Int($0)) }.max() ?? 0
            #expect(window > 500, "quiet at sample \(start)")
        }
    }
}
