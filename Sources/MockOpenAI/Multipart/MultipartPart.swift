/// One part of a `multipart/form-data` body (RFC 7578).
struct MultipartPart: Sendable, Equatable {
    /// The `name` parameter of `Content-Disposition`.
    var name: String
    /// The `filename` parameter, for file parts.
    var filename: String?
    /// The part's `Content-Type`, if it has one.
    var contentType: String?
    /// The part's content, exactly as sent.
    var body: [UInt8]

    /// The content as UTF-8 text.
    var text: String { String(decoding: self.body, as: UTF8.self) }
}
