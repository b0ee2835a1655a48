import IDTokens

/// A secret configuration value (an API key): never printed, logged or compared outside its owner.
public struct Secret: Sendable, Equatable, CustomStringConvertible {
    public let value: String
    /// The file it was read from, if any: not a secret, and what `check-config` prints in its place.
    public let path: String?

    public init(_ value: String, path: String? = nil) {
        self.value = value
        self.path = path
    }

    public var description: String { "<redacted>" }

    /// The same secret whatever file it came from.
    public static func == (lhs: Secret, rhs: Secret) -> Bool { lhs.value == rhs.value }
}

extension Secret {
    /// The secret held in the file at `path` (surrounding whitespace and the trailing newline dropped).
    ///
    /// - Throws: a message that names the path and the problem, never the content.
    static func read(path: String, minimumBytes: Int = 1) throws(SecretFileError) -> Secret {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path: path, limit: 64 * 1024)
        } catch {
            throw SecretFileError(message: "names a file that cannot be read: \(error)")
        }
        let value = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: " \t\r\n")
        guard !value.isEmpty else { throw SecretFileError(message: "names an empty file: \(path)") }
        guard value.utf8.count >= minimumBytes else {
            throw SecretFileError(message: "names a file holding fewer than \(minimumBytes) bytes: \(path)")
        }
        return Secret(value, path: path)
    }
}

/// Why a secret file cannot be used; the caller adds the variable or key.
struct SecretFileError: Error {
    let message: String
}
