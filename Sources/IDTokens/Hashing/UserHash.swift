/// Stable pseudonyms for user ids, so a raw uid never reaches a provider, a log line or a metric label.
public enum UserHash {
    /// OpenAI's end-user identifier (`safety_identifier` / `user`): 32 hex characters of SHA-256 over a
    /// domain-separated uid. Stable per user, so the provider's abuse detection still works per user.
    public static func safetyIdentifier(_ uid: String) -> String {
        Self.hex(OpenSSLDigest.sha256(Array(("storygate/openai-user/" + uid).utf8)).prefix(16))
    }

    /// For logs: 16 hex characters of SHA-256 over a domain-separated uid.
    public static func logIdentifier(_ uid: String) -> String {
        Self.hex(OpenSSLDigest.sha256(Array(("storygate/log-user/" + uid).utf8)).prefix(8))
    }

    private static func hex(_ bytes: some Collection<UInt8>) -> String {
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
