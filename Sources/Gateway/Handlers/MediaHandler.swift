import HTTPTypes
import HummingbirdCore
import NIOCore
import StoryFunctions

/// `GET /media/<key>`: generated audio and images, public by capability URL (the key has ≥128 random bits), as
/// the app's storage rules had it. `ETag`/`If-None-Match`, long-lived caching (a key's content never changes), and
/// single byte ranges (RFC 9110 §14), which the iOS player needs.
enum MediaHandler {
    /// - Parameter prefix: the route's path prefix; the rest of the path is the media key.
    static func handler(_ media: any MediaStore, prefix: String) -> RouteHandler {
        { request, _ in
            // The media store reads files with blocking calls: never on the event loop.
            try await withTaskExecutorPreference(globalConcurrentExecutor) {
                try await Self.respond(to: request, media: media, prefix: prefix)
            }
        }
    }

    /// The route exists; the key names nothing stored (or nothing any more).
    static let noSuchObject = GatewayError(status: .notFound, code: "NOT_FOUND", message: "no such media object")

    private static func respond(to request: Request, media: any MediaStore, prefix: String) async throws -> Response {
        guard request.uri.path.hasPrefix(prefix) else { throw GatewayError.notFound() }
        let key = String(request.uri.path.dropFirst(prefix.count))
        guard let object = try await media.metadata(key) else { throw Self.noSuchObject }
        var headers = HTTPFields()
        headers[.contentType] = object.contentType
        headers[.eTag] = object.etag
        headers[.cacheControl] = "public, max-age=31536000, immutable"
        headers[.acceptRanges] = "bytes"
        if Self.anyMatches(request.headers[values: .ifNoneMatch], etag: object.etag) {
            return Response(status: .notModified, headers: headers)
        }
        // A range is honoured only while the representation is the one the client has (If-Range, §13.1.5).
        let rangeHeader = request.headers[.ifRange].map { $0 == object.etag } ?? true ? request.headers[.range] : nil
        switch ByteRange.parse(rangeHeader, length: object.byteCount) {
        case .full:
            guard let bytes = try await media.read(key, range: nil) else { throw Self.noSuchObject }
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        case .partial(let range):
            guard let bytes = try await media.read(key, range: range) else { throw Self.noSuchObject }
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(object.byteCount)"
            return Response(status: .partialContent, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        case .unsatisfiable:
            var error = GatewayError(
                status: .rangeNotSatisfiable, code: "RANGE_NOT_SATISFIABLE",
                message: "The requested range is outside the resource.", reason: "range_not_satisfiable"
            )
            error.headers[.contentRange] = "bytes */\(object.byteCount)"
            throw error
        }
    }

    /// `If-None-Match` (RFC 9110 §13.1.2): `*`, or a list of entity tags (over any number of fields) compared
    /// weakly — `W/"k"` matches `"k"`. The elements are walked as every list field is (``HTTPListValue``).
    static func anyMatches(_ fields: [String], etag: String) -> Bool {
        fields.contains { field in
            var field = field
            return field.withUTF8 { bytes in
                var matched = false
                HTTPListValue.forEachElement(bytes, 0, bytes.count) { start, end in
                    let weak = end - start > 2 && bytes[start] == UInt8(ascii: "W") && bytes[start + 1] == UInt8(ascii: "/")
                    let tag = UnsafeBufferPointer(rebasing: bytes[(weak ? start + 2 : start)..<end])
                    if (end - start == 1 && bytes[start] == UInt8(ascii: "*")) || tag.elementsEqual(etag.utf8) { matched = true }
                }
                return matched
            }
        }
    }
}
