/// Stable pseudonyms for user ids, so a raw uid never reaches a provider, a log line or a metric label.
public enum UserHash {
    /// OpenAI's end-user identifier (`safety_identifier` / `user`): 32 hex characters of SHA-256 over a
    /// domain-separated uid. Stable per user, so the provider's abuse detection still works per user.
    public static func safetyIdentifier(_ uid: String) -> String {
        SHA256Digest.hex(OpenSSLDigest.sha256(Array(("storygate/openai-user/" + uid).utf8)).prefix(16))
    }

    /// For logs: 16 hex characters of SHA-256 over a domain-separated uid.
    public static func logIdentifier(_ uid: String) -> String {
        SHA256Digest.hex(OpenSSLDigest.sha256(Array(("storygate/log-user/" + uid).utf8)).prefix(8))
    }
}
