import HTTPTypes
import HummingbirdCore
import NIOCore

/// `/healthz` and `/readyz`.
enum SystemHandlers {
    /// 200 while the process is up.
    static func health() -> RouteHandler {
        { _, _ in
            JSONResponse.make(status: .ok, json: "{\"status\":\"ok\"}")
        }
    }

    /// 200 only when every trusted project's certificates are loaded (and, failing closed, Redis is connected).
    static func ready(isReady: @escaping @Sendable () -> Bool) -> RouteHandler {
        { _, _ in
            guard isReady() else {
                throw GatewayError(
                    status: .serviceUnavailable, code: "UNAVAILABLE",
                    message: "The gateway is not ready: token signing certificates are not loaded, or a required store is unreachable.",
                    reason: "not_ready", retryAfter: 5
                )
            }
            return JSONResponse.make(status: .ok, json: "{\"status\":\"ready\"}")
        }
    }
}

enum JSONResponse {
    static func make(status: HTTPResponse.Status, json: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: json)))
    }
}
