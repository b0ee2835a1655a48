/// Where generated audio and images live. One interface, so an object store can be added beside `FileMediaStore`.
/// Objects are immutable: a key is written once.
public protocol MediaStore: Sendable {
    /// Stores bytes under a fresh unguessable key (≥128 random bits, URL-safe); `owner` is the uid, kept as metadata.
    func put(_ bytes: [UInt8], contentType: String, owner: String) async throws -> MediaObject
    /// The object's metadata, or nil when missing or when the key is not well-formed (never touches storage for a
    /// malformed key: no path traversal).
    func metadata(_ key: String) async throws -> MediaObject?
    /// Bytes of `range` (clamped to the object), or all of them; nil when missing or the key is malformed.
    func read(_ key: String, range: Range<Int>?) async throws -> [UInt8]?
}

/// Media keys: 32 lowercase hex characters from the system's secure random source.
public enum MediaKey {
    public static let length = 32

    /// A fresh key: 128 random bits.
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return self.hex(high) + self.hex(low)
    }

    /// True for exactly 32 characters of `0-9a-f`: the only strings that ever reach storage.
    public static func isWellFormed(_ key: String) -> Bool {
        var count = 0
        for byte in key.utf8 {
            count += 1
            guard count <= self.length, (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return false }
        }
        return count == self.length
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
