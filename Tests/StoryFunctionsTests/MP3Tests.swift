@testable import StoryFunctions
import Testing

/// Frame parsing, durations, joining and silence.
@Suite struct MP3Tests {
    /// Frames of silence in the format of `header`.
    static func frames(_ count: Int, _ header: MP3FrameHeader) -> [UInt8] {
        MP3.silence(seconds: Double(count) * header.duration * 0.999, header: header)
    }

    /// An ID3v2.4 tag with `size` bytes of body (syncsafe size).
    static func id3v2(size: Int) -> [UInt8] {
        [0x49, 0x44, 0x33, 4, 0, 0, UInt8((size >> 21) & 0x7F), UInt8((size >> 14) & 0x7F), UInt8((size >> 7) & 0x7F), UInt8(size & 0x7F)]
            + [UInt8](repeating: 0x41, count: size)
    }

    static let id3v1: [UInt8] = Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125)

    static let mpeg1 = MP3FrameHeader(version: .mpeg1, bitrate: 128_000, sampleRate: 44_100, padding: false, mono: false)
    static let mpeg2 = MP3FrameHeader(version: .mpeg2, bitrate: 64_000, sampleRate: 24_000, padding: false, mono: true)
    static let mpeg25 = MP3FrameHeader(version: .mpeg25, bitrate: 8_000, sampleRate: 8_000, padding: false, mono: true)

    @Test func headerFields() throws {
        // FF FB 90 64: MPEG-1 Layer III, 128 kbps, 44.1 kHz, no padding, joint stereo.
        let header = try #require(MP3FrameHeader([0xFF, 0xFB, 0x90, 0x64], at: 0))
        #expect(header.version == .mpeg1)
        #expect(header.bitrate == 128_000)
        #expect(header.sampleRate == 44_100)
        #expect(header.frameLength == 417)
        #expect(header.samplesPerFrame == 1152)
        // FF F3 84 C4: MPEG-2 Layer III, 64 kbps (index 8), 22.05 kHz (index 0), mono: 72 × 64000 / 22050 = 208 bytes.
        let mpeg2 = try #require(MP3FrameHeader([0xFF, 0xF3, 0x80, 0xC4], at: 0))
        #expect(mpeg2.version == .mpeg2)
        #expect(mpeg2.sampleRate == 22_050)
        #expect(mpeg2.frameLength == 208)
        #expect(mpeg2.samplesPerFrame == 576)
        // Layer I, reserved version, free bitrate, bad bitrate, reserved sample rate.
        for bytes: [UInt8] in [[0xFF, 0xFF, 0x90, 0x64], [0xFF, 0xEB, 0x90, 0x64], [0xFF, 0xFB, 0x00, 0x64],
                               [0xFF, 0xFB, 0xF0, 0x64], [0xFF, 0xFB, 0x9C, 0x64], [0xFE, 0xFB, 0x90, 0x64]] {
            #expect(MP3FrameHeader(bytes, at: 0) == nil)
        }
    }

    @Test(arguments: [(mpeg1, 100), (mpeg2, 50), (mpeg25, 7)])
    func durationIsSamplesOverRate(header: MP3FrameHeader, count: Int) throws {
        let stream = Self.frames(count, header)
        #expect(stream.count == count * header.frameLength)
        let duration = try #require(MP3.duration(of: stream))
        #expect(abs(duration - Double(count * header.samplesPerFrame) / Double(header.sampleRate)) < 1e-9)
        #expect(MP3.audioFrameCount(of: stream) == count)
    }

    @Test func id3TagsAreSkipped() throws {
        let audio = Self.frames(40, Self.mpeg1)
        // The tag's body is full of 0xFF bytes that look like sync words; it must be skipped whole.
        var tag = Self.id3v2(size: 700)
        for index in stride(from: 10, to: tag.count - 4, by: 7) { tag.replaceSubrange(index..<(index + 4), with: [0xFF, 0xFB, 0x90, 0x64]) }
        let tagged = tag + audio + Self.id3v1
        #expect(MP3.audioFrameCount(of: tagged) == 40)
        #expect(MP3.duration(of: tagged) == MP3.duration(of: audio))
        #expect(MP3.join([tagged]) == audio)
    }

    @Test func xingFrameCountsAsNoAudio() throws {
        var xing = [UInt8](repeating: 0, count: Self.mpeg1.frameLength)
        xing.replaceSubrange(0..<4, with: Self.mpeg1.bytes!)
        xing.replaceSubrange(36..<40, with: Array("Xing".utf8))  // after 4 header + 32 side-info bytes (stereo MPEG-1)
        let audio = Self.frames(10, Self.mpeg1)
        #expect(MP3.audioFrameCount(of: xing + audio) == 10)
        #expect(MP3.duration(of: xing + audio) == MP3.duration(of: audio))
        var info = [UInt8](repeating: 0, count: Self.mpeg2.frameLength)
        info.replaceSubrange(0..<4, with: Self.mpeg2.bytes!)
        info.replaceSubrange(13..<17, with: Array("Info".utf8))  // 4 + 9 (mono MPEG-2)
        #expect(MP3.audioFrameCount(of: info + Self.frames(3, Self.mpeg2)) == 3)
        // Join drops the Xing frames of every part.
        #expect(MP3.join([xing + audio, xing + audio]) == audio + audio)
    }

    @Test(arguments: [
        [UInt8](), Array("hello, this is not audio".utf8), [UInt8](repeating: 0xFF, count: 4096),
        Array("<html><body>error</body></html>".utf8), [0xFF, 0xFB, 0x90, 0x64],
    ])
    func garbageIsNotMP3(bytes: [UInt8]) {
        #expect(MP3.duration(of: bytes) == nil)
    }

    @Test func randomBytesDoNotSyncFalsely() {
        var random = SeededRandom(seed: 42)
        let noise = (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        #expect(MP3.duration(of: noise) == nil || (MP3.audioFrameCount(of: noise) ?? 0) <= 2)
        // Garbage between two runs of frames is skipped.
        let audio = Self.frames(5, Self.mpeg1)
        #expect(MP3.audioFrameCount(of: audio + Array("junk".utf8) + audio) == 10)
    }

    @Test func joinKeepsEveryFrameAndDurationsAdd() throws {
        let parts = [Self.id3v2(size: 20) + Self.frames(10, Self.mpeg2), Self.frames(7, Self.mpeg2) + Self.id3v1, Self.frames(1, Self.mpeg2)]
        let joined = MP3.join(parts)
        #expect(MP3.audioFrameCount(of: joined) == 18)
        let sum = parts.compactMap { MP3.duration(of: $0) }.reduce(0, +)
        #expect(abs((MP3.duration(of: joined) ?? 0) - sum) < 1e-9)
        #expect(!joined.starts(with: Array("ID3".utf8)))
    }

    @Test(arguments: [0.0, 0.01, 1.0, 12.5, 600.0])
    func silenceLastsAtLeastTheRequestedTime(seconds: Double) throws {
        let bytes = MP3.silence(seconds: seconds)
        let duration = try #require(MP3.duration(of: bytes))
        #expect(duration >= seconds)
        #expect(duration < max(seconds, 0) + 0.037)
        #expect(bytes.starts(with: [0xFF, 0xFB]))
    }
}
