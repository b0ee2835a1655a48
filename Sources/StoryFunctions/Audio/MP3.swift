/// MPEG audio Layer III streams: their frames, a duration read from the frames, joining parts, and silence.
///
/// Parsing skips an ID3v2 tag at the start and an ID3v1 tag at the end, walks frame headers (bitrate, sample rate,
/// padding, samples per frame), and counts a Xing, Info or VBRI frame as carrying no audio. Bytes that are not
/// frames are skipped to the next pair of consecutive valid headers.
public enum MP3 {
    /// Seconds of audio in `bytes`, computed from its frames; nil when it holds no MP3 frame.
    public static func duration(of bytes: [UInt8]) -> Double? {
        let frames = self.frames(in: bytes)
        guard !frames.isEmpty else { return nil }
        return frames.reduce(0.0) { $0 + ($1.isInfo ? 0 : $1.header.duration) }
    }

    /// Number of audio frames (Xing/Info frames excluded), or nil when there is none at all.
    public static func audioFrameCount(of bytes: [UInt8]) -> Int? {
        let frames = self.frames(in: bytes)
        guard !frames.isEmpty else { return nil }
        return frames.count { !$0.isInfo }
    }

    /// One stream from `parts`: their audio frames in order, without ID3 tags and without Xing/Info frames
    /// (whose frame counts would describe only one part). Bytes of a part that are not frames are dropped.
    public static func join(_ parts: [[UInt8]]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(parts.reduce(0) { $0 + $1.count })
        for part in parts {
            for frame in self.frames(in: part) where !frame.isInfo {
                result.append(contentsOf: part[frame.range])
            }
        }
        return result
    }

    /// The silent-frame format: MPEG-1 Layer III, 32 kHz, 32 kbps, mono: 144-byte frames of 36 ms
    /// (4 KB a second, so long offline speech stays small).
    static let silenceHeader = MP3FrameHeader(version: .mpeg1, bitrate: 32_000, sampleRate: 32_000, padding: false, mono: true)

    /// A real MPEG-1 Layer III stream of silent frames lasting at least `seconds` (whole 36 ms frames, at least one,
    /// at most four hours).
    public static func silence(seconds: Double) -> [UInt8] {
        self.silence(seconds: seconds, header: self.silenceHeader)
    }

    /// Silent frames in the format of `header`: the header, zeroed side information (no Huffman data, so every
    /// granule decodes to silence) and zero padding.
    static func silence(seconds: Double, header: MP3FrameHeader) -> [UInt8] {
        let wanted = seconds.isFinite && seconds > 0 ? (seconds / header.duration).rounded(.up) : 1
        let count = max(1, Int(min(wanted, 400_000)))  // at most 400,000 frames (4 hours at 36 ms)
        var frame = [UInt8](repeating: 0, count: header.frameLength)
        frame.replaceSubrange(0..<4, with: header.bytes!)
        var result: [UInt8] = []
        result.reserveCapacity(count * frame.count)
        for _ in 0..<count { result.append(contentsOf: frame) }
        return result
    }

    // MARK: Frames

    struct Frame {
        var header: MP3FrameHeader
        var range: Range<Int>
        /// A Xing, Info or VBRI frame: stream metadata, no audio.
        var isInfo: Bool
    }

    static func frames(in bytes: [UInt8]) -> [Frame] {
        var end = bytes.count
        if end >= 128, bytes[end - 128] == 0x54, bytes[end - 127] == 0x41, bytes[end - 126] == 0x47 { end -= 128 }  // "TAG"
        var offset = self.id3v2Length(bytes)
        var frames: [Frame] = []
        var synced = false
        while offset + 4 <= end {
            guard let header = MP3FrameHeader(bytes, at: offset) else {
                synced = false
                offset += 1
                continue
            }
            let length = header.frameLength
            let next = offset + length
            guard length >= 4 + header.sideInfoLength, next <= end else {
                if synced, next > end, offset + 4 + header.sideInfoLength <= end {
                    // A truncated last frame of an otherwise good stream: stop.
                    break
                }
                synced = false
                offset += 1
                continue
            }
            // Outside a run of frames, require the next header too (or the exact end), to avoid false syncs.
            if !synced, next != end, MP3FrameHeader(bytes, at: next) == nil {
                offset += 1
                continue
            }
            synced = true
            frames.append(Frame(header: header, range: offset..<next, isInfo: frames.isEmpty && self.isInfoFrame(bytes, header, at: offset)))
            offset = next
        }
        return frames
    }

    /// Length of an ID3v2 tag at the start (10-byte header, syncsafe size, optional 10-byte footer), or 0.
    static func id3v2Length(_ bytes: [UInt8]) -> Int {
        guard bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 else { return 0 }  // "ID3"
        let sizeBytes = bytes[6...9]
        guard sizeBytes.allSatisfy({ $0 < 0x80 }) else { return 0 }
        let size = sizeBytes.reduce(0) { $0 << 7 | Int($1) }
        let footer = bytes[5] & 0x10 != 0 ? 10 : 0
        return min(bytes.count, 10 + size + footer)
    }

    private static func isInfoFrame(_ bytes: [UInt8], _ header: MP3FrameHeader, at offset: Int) -> Bool {
        let xing = offset + 4 + (header.protected ? 2 : 0) + header.sideInfoLength
        if self.matches(bytes, at: xing, "Xing") || self.matches(bytes, at: xing, "Info") { return true }
        return self.matches(bytes, at: offset + 36, "VBRI")
    }

    private static func matches(_ bytes: [UInt8], at offset: Int, _ tag: StaticString) -> Bool {
        let count = tag.utf8CodeUnitCount
        guard offset >= 0, offset + count <= bytes.count else { return false }
        return tag.withUTF8Buffer { buffer in
            for index in 0..<count where bytes[offset + index] != buffer[index] { return false }
            return true
        }
    }
}
