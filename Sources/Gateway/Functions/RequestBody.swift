import HTTPTypes
import HummingbirdCore
import NIOCore

/// Reads a request body into memory, refusing (413) anything over `limit` before reading it when the length is
/// declared, and as soon as it passes the limit otherwise.
enum RequestBodyReader {
    static func collect(_ body: RequestBody, headers: HTTPFields, limit: Int) async throws -> [UInt8] {
        if let declared = headers[.contentLength].flatMap(Int.init), declared > limit {
            throw GatewayError.payloadTooLarge(limit: limit)
        }
        var bytes: [UInt8] = []
        for try await buffer in body {
            guard bytes.count + buffer.readableBytes <= limit else { throw GatewayError.payloadTooLarge(limit: limit) }
            bytes.append(contentsOf: buffer.readableBytesView)
        }
        return bytes
    }
}
