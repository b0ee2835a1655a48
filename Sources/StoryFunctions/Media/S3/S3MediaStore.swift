public import CoreMetrics
public import CurlHTTP
internal import IDTokens
public import Logging
internal import OpenAI
internal import Synchronization

/// Media in an S3 bucket (AWS S3, Google Cloud Storage's XML API, Cloudflare R2, MinIO), so every replica serves
/// every key. An object is named after the app's storage layout, `<prefix><kind>/<uid hash>/<key>.<png|mp3>`, with
/// its content type and owner (`x-amz-meta-owner`, the uid hash the logs use, never the uid) as metadata.
///
/// `/media/<key>` carries only the key, so each object has an index entry `<prefix>keys/<key>`: an empty object whose
/// metadata names the object and repeats its type, size and owner. One HEAD of it answers `metadata(_:)`; it is
/// written after the object, so a key that is found can be read. Key → entry is immutable and kept in a bounded
/// cache. Reads are ranged GETs of at most ``S3Settings/chunkBytes``, so a proxied download never holds the object.
public final class S3MediaStore: MediaStore {
    public let settings: S3Settings
    private let client: S3Client
    private let presigner: S3Presigner
    private let cache = Mutex<[String: Entry]>([:])

    /// Index entries kept in memory (each about 200 bytes).
    static let cacheLimit = 10_000

    private struct Entry: Sendable {
        let object: MediaObject
        let name: String
    }

    /// A store on `http` (which must be running, e.g. in the application's `ServiceGroup`); nothing is sent until used.
    public init(settings: S3Settings, http: CurlClient, logger: Logger, metricsFactory: any MetricsFactory = MetricsSystem.factory) {
        self.settings = settings
        self.client = S3Client(settings: settings, http: http, logger: logger, metrics: S3Metrics(factory: metricsFactory), jitter: .random)
        self.presigner = S3Presigner(settings: settings)
        S3Metrics(factory: metricsFactory).up(true)
    }

    /// The uid hash the logs use (`uid_hash`).
    public func ownerTag(_ uid: String) -> String {
        UserHash.logIdentifier(uid)
    }

    /// The object name for a key of `kind` owned by `ownerTag` (a uid hash).
    public func objectName(key: String, kind: MediaKind, ownerTag: String) -> String {
        "\(self.settings.prefix)\(kind.rawValue)/\(ownerTag)/\(key).\(kind.fileExtension)"
    }

    /// The index entry's name for `key`.
    public func indexName(key: String) -> String {
        "\(self.settings.prefix)keys/\(key)"
    }

    public func put(_ bytes: [UInt8], contentType: String, owner: String, kind: MediaKind) async throws -> MediaObject {
        let key = MediaKey.make()
        let ownerTag = self.ownerTag(owner)
        let name = self.objectName(key: key, kind: kind, ownerTag: ownerTag)
        try await self.client.put(name, body: bytes, contentType: contentType, metadata: [("owner", ownerTag)])
        try await self.client.put(self.indexName(key: key), body: [], contentType: contentType, metadata: [
            ("name", name), ("byte-count", String(bytes.count)), ("owner", ownerTag),
        ])
        let object = MediaObject(key: key, contentType: contentType, byteCount: bytes.count, etag: "\"\(key)\"", owner: ownerTag)
        self.remember(key, Entry(object: object, name: name))
        return object
    }

    public func metadata(_ key: String) async throws -> MediaObject? {
        try await self.entry(key)?.object
    }

    public func read(_ key: String, range: Range<Int>?) async throws -> [UInt8]? {
        guard let entry = try await self.entry(key) else { return nil }
        let wanted = range.map { $0.clamped(to: 0..<entry.object.byteCount) } ?? 0..<entry.object.byteCount
        if wanted.isEmpty { return [] }
        guard let answer = try await self.client.get(entry.name, range: wanted, maxBytes: wanted.count) else { return nil }
        guard answer.status != 416, answer.response.body.count == wanted.count else { throw FunctionError.storageUnavailable }
        return answer.response.body
    }

    /// A presigned GET URL for `key`'s object valid `expiresSeconds` from `now` (seconds since 1970); nil when there
    /// is no such key. The URL is signed for the object alone.
    public func presignedURL(_ key: String, expiresSeconds: Int, now: Int) async throws -> String? {
        guard let entry = try await self.entry(key), let address = S3Address(name: entry.name, settings: self.settings) else { return nil }
        return self.presigner.presignedGET(address, amzDate: S3Presigner.amzDate(secondsSince1970: now), expiresSeconds: expiresSeconds)
    }

    // MARK: Index

    private func entry(_ key: String) async throws(FunctionError) -> Entry? {
        guard MediaKey.isWellFormed(key) else { return nil }
        if let cached = self.cache.withLock({ $0[key] }) { return cached }
        guard let answer = try await self.client.head(self.indexName(key: key)) else { return nil }
        guard let name = answer.metadata("name"), let size = answer.metadata("byte-count").flatMap({ Int($0) }), size >= 0,
              let owner = answer.metadata("owner"), let contentType = answer.response.header("Content-Type")
        else { throw .storage }
        let entry = Entry(
            object: MediaObject(key: key, contentType: contentType, byteCount: size, etag: "\"\(key)\"", owner: owner), name: name
        )
        self.remember(key, entry)
        return entry
    }

    private func remember(_ key: String, _ entry: Entry) {
        self.cache.withLock { cache in
            if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[key] = entry
        }
    }
}
