import HTTPTypes
import IDTokens
import HummingbirdCore
import NIOCore

/// The one place errors become HTTP: `{"error": {"code", "message", "retryAfter"?}, "requestId", "timestamp"}`.
enum ErrorResponse {
    static func make(_ error: GatewayError, requestID: String, now: Double) -> Response {
        let json = Self.json(error, requestID: requestID, now: now)
        return Response(status: error.status, headers: Self.fields(error), body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }

    /// The fields of an error answer (besides the length, the request id and the date).
    static func fields(_ error: GatewayError) -> HTTPFields {
        var headers = error.headers
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        if let retryAfter = error.retryAfter {
            headers[.retryAfter] = String(retryAfter)
        }
        return headers
    }

    /// The JSON body of an error answer.
    static func json(_ error: GatewayError, requestID: String, now: Double) -> String {
        var json = "{\"error\":{\"code\":\(JSONWriter.quoted(error.code)),\"message\":\(JSONWriter.quoted(error.message))"
        if let retryAfter = error.retryAfter {
            json += ",\"retryAfter\":\(retryAfter)"
        }
        json += "},\"requestId\":\(JSONWriter.quoted(requestID)),\"timestamp\":\(JSONWriter.quoted(HTTPDate.rfc3339(now)))}"
        return json
    }
}
