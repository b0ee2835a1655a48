/// The shared secret behind identity assertions: at least 32 bytes (HMAC-SHA256's block size is 64, its output
/// 32; a shorter key weakens the MAC). Never printed.
public struct IdentityAssertionKey: Sendable, CustomStringConvertible {
    /// The fewest key bytes accepted.
    public static let minimumByteCount = 32

    let bytes: [UInt8]

    /// A key from raw bytes; nil when there are fewer than ``minimumByteCount``.
    public init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count >= Self.minimumByteCount else { return nil }
        self.bytes = Array(bytes)
    }

    public var description: String { "<redacted>" }
}
