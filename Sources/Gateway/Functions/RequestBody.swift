import HTTPTypes
import HummingbirdCore
import NIOCore

/// Reads a request body into memory, at most `limit` bytes (413 above it).
enum RequestBodyReader {
    /// A declared `Content-Length` over the limit: refuse before reading anything.
    static func refuseIfDeclaredTooLarge(_ headers: HTTPFields, limit: Int) throws(GatewayError) {
        if let declared = headers[.contentLength].flatMap(Int.init), declared > limit {
            throw GatewayError.payloadTooLarge(limit: limit)
        }
    }

    /// The whole body; past `limit` the rest is read and dropped (so the connection stays in step, and a body
    /// forwarder upstream of this reader is never left blocked), then 413.
    static func collect(_ body: RequestBody, headers: HTTPFields, limit: Int) async throws -> [UInt8] {
        try self.refuseIfDeclaredTooLarge(headers, limit: limit)
        var bytes: [UInt8] = []
        var tooLarge = false
        do {
            for try await buffer in body {
                if tooLarge { continue }
                guard bytes.count + buffer.readableBytes <= limit else {
                    tooLarge = true
                    bytes = []
                    continue
                }
                bytes.append(contentsOf: buffer.readableBytesView)
            }
        } catch let error as CancellationError {
            throw error
        } catch {
            // The client broke the body off or sent a malformed one (the parser's error): the client's fault.
            throw GatewayError.unreadableRequestBody()
        }
        if tooLarge { throw GatewayError.payloadTooLarge(limit: limit) }
        return bytes
    }
}
