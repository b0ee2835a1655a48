/// The 4-byte header of an MPEG audio Layer III frame (MPEG-1, MPEG-2 and MPEG-2.5).
struct MP3FrameHeader: Equatable {
    enum Version: Equatable {
        case mpeg1, mpeg2, mpeg25
    }

    var version: Version
    /// Bits per second.
    var bitrate: Int
    /// Samples per second.
    var sampleRate: Int
    var padding: Bool
    var mono: Bool
    /// A 16-bit CRC follows the header.
    var protected: Bool

    private static let bitratesMPEG1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0]
    private static let bitratesMPEG2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0]
    private static let sampleRatesMPEG1 = [44_100, 48_000, 32_000]

    /// Reads a Layer III header at `offset`, or nil when those bytes are not one (free-format and reserved values
    /// are rejected).
    init?(_ bytes: [UInt8], at offset: Int) {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        let b1 = bytes[offset + 1], b2 = bytes[offset + 2], b3 = bytes[offset + 3]
        guard bytes[offset] == 0xFF, b1 & 0xE0 == 0xE0 else { return nil }
        switch (b1 >> 3) & 0x03 {
        case 0: self.version = .mpeg25
        case 2: self.version = .mpeg2
        case 3: self.version = .mpeg1
        default: return nil
        }
        guard (b1 >> 1) & 0x03 == 0x01 else { return nil }  // Layer III
        self.protected = b1 & 0x01 == 0
        let bitrateIndex = Int(b2 >> 4)
        let rateIndex = Int((b2 >> 2) & 0x03)
        guard bitrateIndex != 0, bitrateIndex != 15, rateIndex != 3, b3 & 0x03 != 2 else { return nil }
        let kbps = self.version == .mpeg1 ? Self.bitratesMPEG1[bitrateIndex] : Self.bitratesMPEG2[bitrateIndex]
        self.bitrate = kbps * 1000
        let base = Self.sampleRatesMPEG1[rateIndex]
        self.sampleRate = switch self.version {
        case .mpeg1: base
        case .mpeg2: base / 2
        case .mpeg25: base / 4
        }
        self.padding = (b2 >> 1) & 0x01 == 1
        self.mono = b3 >> 6 == 3
    }

    init(version: Version, bitrate: Int, sampleRate: Int, padding: Bool, mono: Bool, protected: Bool = false) {
        self.version = version
        self.bitrate = bitrate
        self.sampleRate = sampleRate
        self.padding = padding
        self.mono = mono
        self.protected = protected
    }

    var samplesPerFrame: Int { self.version == .mpeg1 ? 1152 : 576 }

    /// The whole frame's length in bytes, header included.
    var frameLength: Int {
        let coefficient = self.version == .mpeg1 ? 144 : 72
        return coefficient * self.bitrate / self.sampleRate + (self.padding ? 1 : 0)
    }

    var duration: Double { Double(self.samplesPerFrame) / Double(self.sampleRate) }

    /// Bytes of side information after the header (and CRC).
    var sideInfoLength: Int {
        switch (self.version == .mpeg1, self.mono) {
        case (true, false): 32
        case (true, true): 17
        case (false, false): 17
        case (false, true): 9
        }
    }

    /// The header's 4 bytes (no CRC, not copyrighted, original).
    var bytes: [UInt8]? {
        let versionBits: UInt8 = switch self.version {
        case .mpeg1: 3
        case .mpeg2: 2
        case .mpeg25: 0
        }
        let table = self.version == .mpeg1 ? Self.bitratesMPEG1 : Self.bitratesMPEG2
        guard let bitrateIndex = table.firstIndex(of: self.bitrate / 1000), bitrateIndex != 0, self.bitrate % 1000 == 0 else { return nil }
        let divisor = switch self.version {
        case .mpeg1: 1
        case .mpeg2: 2
        case .mpeg25: 4
        }
        guard let rateIndex = Self.sampleRatesMPEG1.firstIndex(where: { $0 / divisor == self.sampleRate }) else { return nil }
        let b1: UInt8 = 0xE0 | versionBits << 3 | 0x01 << 1 | (self.protected ? 0 : 1)
        let b2 = UInt8(bitrateIndex) << 4 | UInt8(rateIndex) << 2 | (self.padding ? 0x02 : 0)
        let b3: UInt8 = (self.mono ? 0xC0 : 0x00) | 0x04
        return [0xFF, b1, b2, b3]
    }
}
