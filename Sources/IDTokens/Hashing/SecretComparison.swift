/// Compares a presented secret (a bearer token) with the expected one in time that depends on neither: both are
/// hashed with SHA-256 first, so even their lengths stay hidden, then the digests are compared in constant time.
public enum SecretComparison {
    public static func equals(_ presented: some StringProtocol, _ expected: some StringProtocol) -> Bool {
        let a = SHA256Digest.hash(Array(presented.utf8))
        let b = SHA256Digest.hash(Array(expected.utf8))
        return a.withUnsafeBytes { a in b.withUnsafeBytes { b in ConstantTime.equals(a, b) } }
    }
}
