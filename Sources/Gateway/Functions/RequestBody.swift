import HTTPTypes
import HummingbirdCore
import NIOCore

/// Reads a request body into memory, at most `limit` bytes (413 above it).
enum RequestBodyReader {
    /// A declared `Content-Length` over the limit: refuse before reading anything. The connection's reader
    /// (``RawRequestHead``) has made sure the value is one run of digits, so one too long for an `Int` is over any limit.
    static func refuseIfDeclaredTooLarge(_ headers: HTTPFields, limit: Int) throws(GatewayError) {
        guard let declared = headers[.contentLength] else { return }
        if Int(declared).map({ $0 > limit }) ?? true { throw GatewayError.payloadTooLarge(limit: limit) }
    }

    /// The whole body; 413 as soon as it passes `limit`. The rest is not read: the refusal closes the connection
    /// (`GatewayResponder` closes after any refusal with a body of unknown length still unread), so a client
    /// streaming 500 MiB of chunks is answered at 256 KiB, not after the last chunk.
    static func collect(_ body: RequestBody, headers: HTTPFields, limit: Int) async throws -> [UInt8] {
        try self.refuseIfDeclaredTooLarge(headers, limit: limit)
        var bytes: [UInt8] = []
        do {
            for try await buffer in body {
                guard bytes.count + buffer.readableBytes <= limit else { throw GatewayError.payloadTooLarge(limit: limit) }
                bytes.append(contentsOf: buffer.readableBytesView)
            }
        } catch let error as GatewayError {
            throw error
        } catch let error as CancellationError {
            throw error
        } catch let failure as RequestBodyFailure {
            // The connection could not read the body to its end: a 408 for a timeout, 400 for broken framing.
            throw failure.error
        } catch {
            // The client broke the body off or sent a malformed one (the parser's error): the client's fault.
            throw GatewayError.unreadableRequestBody()
        }
        return bytes
    }
}
