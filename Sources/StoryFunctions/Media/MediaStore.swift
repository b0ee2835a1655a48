/// Where generated audio and images live. One interface, so an object store can be added beside `FileMediaStore`.
/// Objects are immutable: a key is written once.
public protocol MediaStore: Sendable {
    /// Stores bytes under a fresh unguessable key (≥128 random bits, URL-safe); `owner` is the uid, kept as metadata
    /// (as ``ownerTag(_:)`` writes it). `kind` says which folder of the app's storage layout it belongs in.
    func put(_ bytes: [UInt8], contentType: String, owner: String, kind: MediaKind) async throws -> MediaObject
    /// The object's metadata, or nil when missing or when the key is not well-formed (never touches storage for a
    /// malformed key: no path traversal).
    func metadata(_ key: String) async throws -> MediaObject?
    /// Bytes of `range` (clamped to the object), or all of them; nil when missing or the key is malformed.
    func read(_ key: String, range: Range<Int>?) async throws -> [UInt8]?
    /// How this store records the owner `uid` in ``MediaObject/owner`` (the uid itself, or a hash of it).
    func ownerTag(_ uid: String) -> String
}

extension MediaStore {
    /// Stores bytes, their kind taken from the content type (audio is story audio, an image an illustration).
    public func put(_ bytes: [UInt8], contentType: String, owner: String) async throws -> MediaObject {
        try await self.put(bytes, contentType: contentType, owner: owner, kind: contentType == "audio/mpeg" ? .storyAudio : .storyIllustration)
    }

    /// The uid itself.
    public func ownerTag(_ uid: String) -> String { uid }
}

/// The folders of the app's storage layout (Firebase Storage's), each with its file extension.
public enum MediaKind: String, Sendable, CaseIterable {
    case heroAvatar = "hero-avatars"
    case storyAudio = "story-audio"
    case storyIllustration = "story-illustrations"

    /// `png` or `mp3`.
    public var fileExtension: String { self == .storyAudio ? "mp3" : "png" }
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
