/// Builds EMSA-PKCS1-v1_5 encoded messages (RFC 8017 §9.2), correct or with chosen defects, to be turned
/// into signatures with `RSAPrivateKey.rawPrivateOperation`.
///
/// A correct RS256 encoding of a 256-byte modulus is `00 01 FF…FF 00 || DigestInfo(SHA-256, H)` where
/// DigestInfo = `30 31 30 0d 06 09 60 86 48 01 65 03 04 02 01 05 00 04 20 || H`.
public enum TokenPKCS1 {
    /// DigestInfo prefix for SHA-256 (OID 2.16.840.1.101.3.4.2.1, NULL parameters).
    public static let sha256Prefix: [UInt8] = [
        0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20,
    ]
    /// SHA-256 DigestInfo prefix WITHOUT the NULL parameters (a defect RS256 must refuse).
    public static let sha256PrefixWithoutNull: [UInt8] = [
        0x30, 0x2f, 0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x04, 0x20,
    ]
    /// DigestInfo prefix claiming SHA-512's OID (2.16.840.1.101.3.4.2.3) over a 32-byte hash: a wrong OID.
    public static let wrongOIDPrefix: [UInt8] = [
        0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03, 0x05, 0x00, 0x04, 0x20,
    ]
    /// DigestInfo prefix for SHA-1 (OID 1.3.14.3.2.26), for a 20-byte hash.
    public static let sha1Prefix: [UInt8] = [
        0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14,
    ]

    /// `00 blockType PS 00? digestInfo trailing`, left-padded with `paddingByte` to `length` bytes.
    /// - Parameters:
    ///   - digestInfo: the DigestInfo bytes (prefix + hash).
    ///   - length: the modulus length in bytes.
    ///   - blockType: 0x01 for signatures; anything else is a defect.
    ///   - paddingByte: 0xFF for signatures.
    ///   - paddingCount: how many padding bytes; nil fills the block (a short count is made up by leading zeros,
    ///     which moves the 0x01 right: a defect).
    ///   - separator: whether the 0x00 after the padding is present.
    ///   - trailing: bytes appended after the DigestInfo (a defect when non-empty).
    public static func encode(
        digestInfo: [UInt8], length: Int, blockType: UInt8 = 0x01, paddingByte: UInt8 = 0xFF,
        paddingCount: Int? = nil, separator: Bool = true, trailing: [UInt8] = []
    ) -> [UInt8] {
        let tail = (separator ? [0x00] : []) + digestInfo + trailing
        let fill = paddingCount ?? (length - 2 - tail.count)
        var block: [UInt8] = [0x00, blockType] + [UInt8](repeating: paddingByte, count: fill) + tail
        if block.count < length { block = [UInt8](repeating: 0, count: length - block.count) + block }
        precondition(block.count == length, "encoding does not fit the modulus")
        return block
    }
}
