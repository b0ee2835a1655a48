/// A stored media object's metadata.
public struct MediaObject: Sendable, Equatable {
    /// The unguessable key: 32 lowercase hex characters (128 random bits). Served at `/media/<key>`.
    public let key: String
    /// `audio/mpeg` or `image/png`.
    public let contentType: String
    public let byteCount: Int
    /// A strong entity tag, quotes included, ready for the `ETag` header. Objects never change, so it is fixed.
    public let etag: String
    /// The uid of the user whose call created it.
    public let owner: String

    public init(key: String, contentType: String, byteCount: Int, etag: String, owner: String) {
        self.key = key
        self.contentType = contentType
        self.byteCount = byteCount
        self.etag = etag
        self.owner = owner
    }
}
