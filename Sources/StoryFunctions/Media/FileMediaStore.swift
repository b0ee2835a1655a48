#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// Media on the local filesystem under one directory (`MEDIA_DIR`, default `./data/media`), created on the
/// first `put`. Each object is two files: `<key>.bin` with the bytes and `<key>.json` with its metadata (content
/// type, size, ETag, owner). Both are written to a temporary file and renamed into place, bytes first, so an
/// object is visible only once complete. Keys are checked before any path is made (`MediaKey.isWellFormed`).
///
/// The calls are small blocking file operations on the calling task's thread; durability beyond the rename
/// (fsync) is not attempted: media can be generated again.
public final class FileMediaStore: MediaStore {
    public let directory: String

    public init(directory: String) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    private struct Sidecar: Codable {
        var contentType: String
        var byteCount: Int
        var etag: String
        var owner: String

        enum CodingKeys: String, CodingKey {
            case etag, owner
            case contentType = "content_type"
            case byteCount = "byte_count"
        }
    }

    public func put(_ bytes: [UInt8], contentType: String, owner: String, kind: MediaKind) async throws -> MediaObject {
        try POSIXFile.makeDirectory(self.directory)
        let key = MediaKey.make()
        let object = MediaObject(key: key, contentType: contentType, byteCount: bytes.count, etag: "\"\(key)\"", owner: owner)
        let sidecar = Sidecar(contentType: contentType, byteCount: bytes.count, etag: object.etag, owner: owner)
        let metadata = [UInt8](try JSONEncoder().encode(sidecar))
        try POSIXFile.writeAtomically(bytes, to: self.path(key, "bin"), directory: self.directory)
        try POSIXFile.writeAtomically(metadata, to: self.path(key, "json"), directory: self.directory)
        return object
    }

    public func metadata(_ key: String) async throws -> MediaObject? {
        guard MediaKey.isWellFormed(key), let bytes = try POSIXFile.read(self.path(key, "json"), range: nil) else { return nil }
        guard let sidecar = try? JSONDecoder().decode(Sidecar.self, from: Data(bytes)) else { throw FunctionError.storage }
        return MediaObject(
            key: key, contentType: sidecar.contentType, byteCount: sidecar.byteCount, etag: sidecar.etag, owner: sidecar.owner
        )
    }

    public func read(_ key: String, range: Range<Int>?) async throws -> [UInt8]? {
        guard MediaKey.isWellFormed(key) else { return nil }
        return try POSIXFile.read(self.path(key, "bin"), range: range)
    }

    private func path(_ key: String, _ suffix: String) -> String {
        "\(self.directory)/\(key).\(suffix)"
    }
}
