/// SHA-256 and HMAC-SHA256 over OpenSSL, for other modules (the S3 media store's payload hashes and presigned URLs).
public enum SHA256Digest {
    /// The 32-byte SHA-256 of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        OpenSSLDigest.sha256(bytes)
    }

    /// The 32-byte HMAC-SHA256 (RFC 2104) of `message` under `key`.
    public static func hmac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: OpenSSLHMAC.sha256Length)
        let ok = key.withUnsafeBytes { key in
            message.withUnsafeBytes { message in
                mac.withUnsafeMutableBytes { OpenSSLHMAC.sha256(key: key, message: message, into: $0) }
            }
        }
        precondition(ok, "HMAC-SHA256 failed")
        return mac
    }

    /// Lowercase hexadecimal, two digits a byte.
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
