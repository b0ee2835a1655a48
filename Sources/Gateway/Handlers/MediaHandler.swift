import HTTPTypes
import HTTPWire
import HummingbirdCore
import NIOCore
import StoryFunctions

/// `GET /media/<key>`: generated audio and images, public by capability URL (the key has ≥128 random bits), as
/// the app's storage rules had it. `ETag`/`If-None-Match`, long-lived caching (a key's content never changes), and
/// single byte ranges (RFC 9110 §14), which the iOS player needs. The bytes stream in pieces of at most
/// ``chunkBytes`` (whatever the store), or with `redirect` delivery the answer is a 302 to a presigned store URL.
enum MediaHandler {
    /// How `/media/<key>` hands out the bytes.
    enum Delivery: Sendable {
        /// The gateway streams them (`MEDIA_DELIVERY=proxy`).
        case proxy
        /// A 302 to the URL `presign(key)` makes (nil: no such key) (`MEDIA_DELIVERY=redirect`).
        case redirect(presign: @Sendable (String) async throws -> String?)
    }

    /// The most one read of the store returns, and so the most a download holds in memory at once.
    static let chunkBytes = 256 * 1024

    /// - Parameter prefix: the route's path prefix; the rest of the path is the media key.
    static func handler(_ media: any MediaStore, prefix: String, delivery: Delivery = .proxy) -> RouteHandler {
        { request, _ in
            do {
                // The file store reads with blocking calls: never on the event loop.
                return try await withTaskExecutorPreference(globalConcurrentExecutor) {
                    try await Self.respond(to: request, media: media, prefix: prefix, delivery: delivery)
                }
            } catch let failure as FunctionError {
                throw GatewayError(failure)
            }
        }
    }

    /// The route exists; the key names nothing stored (or nothing any more).
    static let noSuchObject = GatewayError(status: .notFound, code: "NOT_FOUND", message: "no such media object")

    private static func respond(to request: Request, media: any MediaStore, prefix: String, delivery: Delivery) async throws -> Response {
        guard request.uri.path.hasPrefix(prefix) else { throw GatewayError.notFound() }
        let key = String(request.uri.path.dropFirst(prefix.count))
        if case .redirect(let presign) = delivery {
            guard let url = try await presign(key) else { throw Self.noSuchObject }
            var headers = HTTPFields()
            headers[.location] = url
            headers[.cacheControl] = "no-store"
            return Response(status: .found, headers: headers)
        }
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
            let body = try await Self.body(media, key: key, range: 0..<object.byteCount, headOnly: request.method == .head)
            return Response(status: .ok, headers: headers, body: body)
        case .partial(let range):
            let body = try await Self.body(media, key: key, range: range, headOnly: request.method == .head)
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(object.byteCount)"
            return Response(status: .partialContent, headers: headers, body: body)
        case .unsatisfiable:
            var error = GatewayError(
                status: .rangeNotSatisfiable, code: "RANGE_NOT_SATISFIABLE",
                message: "The requested range is outside the resource.", reason: "range_not_satisfiable"
            )
            error.headers[.contentRange] = "bytes */\(object.byteCount)"
            throw error
        }
    }

    /// The bytes of `range`: the first piece is read before the answer starts (so a store that fails now is a clean
    /// error answer), the rest one piece at a time as the client takes them. A store failing mid-way ends the
    /// connection: the length was promised.
    private static func body(_ media: any MediaStore, key: String, range: Range<Int>, headOnly: Bool) async throws -> ResponseBody {
        if headOnly { return ResponseBody(contentLength: range.count) { writer in try await writer.finish(nil) } }
        let firstEnd = min(range.upperBound, range.lowerBound + Self.chunkBytes)
        let first = try await Self.piece(media, key: key, range: range.lowerBound..<firstEnd)
        if firstEnd == range.upperBound { return ResponseBody(byteBuffer: ByteBuffer(bytes: first)) }
        return ResponseBody(contentLength: range.count) { writer in
            // The next piece is read while this one is written (an object store's round trip is hidden behind the
            // client's download): at most two pieces are held.
            var next: PieceRead? = Self.prefetch(media, key: key, range: firstEnd..<min(range.upperBound, firstEnd + Self.chunkBytes))
            defer { next?.cancel() }
            try await writer.write(ByteBuffer(bytes: first))
            while let reading = next {
                let bytes = try await reading.value
                let end = reading.range.upperBound
                next = end < range.upperBound ? Self.prefetch(media, key: key, range: end..<min(range.upperBound, end + Self.chunkBytes)) : nil
                try await writer.write(ByteBuffer(bytes: bytes))
            }
            try await writer.finish(nil)
        }
    }

    /// A piece being read, off the event loop (the file store blocks).
    private struct PieceRead: Sendable {
        let range: Range<Int>
        let task: Task<[UInt8], any Error>

        var value: [UInt8] { get async throws { try await self.task.value } }
        func cancel() { self.task.cancel() }
    }

    private static func prefetch(_ media: any MediaStore, key: String, range: Range<Int>) -> PieceRead {
        PieceRead(range: range, task: Task(executorPreference: globalConcurrentExecutor) { try await Self.piece(media, key: key, range: range) })
    }

    /// Exactly the bytes of `range`, or an error (a missing or shorter object, after its metadata promised them).
    private static func piece(_ media: any MediaStore, key: String, range: Range<Int>) async throws -> [UInt8] {
        guard let bytes = try await media.read(key, range: range) else { throw Self.noSuchObject }
        guard bytes.count == range.count else { throw FunctionError.storage }
        return bytes
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
