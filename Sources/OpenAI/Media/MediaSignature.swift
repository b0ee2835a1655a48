/// Checks of what a media body starts with, so a JSON error or an HTML page is never stored as media.
enum MediaSignature {
    private static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The 8-byte PNG signature.
    static func isPNG(_ bytes: [UInt8]) -> Bool {
        bytes.count > Self.png.count && bytes.prefix(Self.png.count).elementsEqual(Self.png)
    }

    /// An ID3v2 tag (`ID3`) or an MPEG audio frame sync (11 set bits) at the start.
    static func isMP3(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        if bytes[0] == UInt8(ascii: "I"), bytes[1] == UInt8(ascii: "D"), bytes[2] == UInt8(ascii: "3") {
            return true
        }
        return bytes[0] == 0xFF && (bytes[1] & 0xE0) == 0xE0
    }
}
