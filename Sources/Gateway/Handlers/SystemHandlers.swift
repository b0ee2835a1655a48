import HTTPTypes
import HummingbirdCore
import NIOCore

/// What `/readyz` answers.
enum Readiness: Sendable {
    case ready
    /// Shutting down: new work belongs on another instance.
    case draining
    /// Certificates not loaded yet, or a required store unreachable.
    case notReady
}

/// `/healthz` and `/readyz`.
enum SystemHandlers {
    /// 200 while the process is up.
    static func health() -> RouteHandler {
        { _, _ in
            JSONResponse.make(status: .ok, json: "{\"status\":\"ok\"}")
        }
    }

    /// 200 only when every trusted project's certificates are loaded (and, failing closed, Redis is connected), and
    /// the gateway is not draining; each 503 says which.
    static func ready(isReady: @escaping @Sendable () -> Readiness) -> RouteHandler {
        { _, _ in
            switch isReady() {
            case .ready:
                return JSONResponse.make(status: .ok, json: "{\"status\":\"ready\"}")
            case .draining:
                throw GatewayError(
                    status: .serviceUnavailable, code: "UNAVAILABLE",
                    message: "The gateway is shutting down: requests in flight finish, new ones belong on another instance.",
                    reason: "draining"
                )
            case .notReady:
                throw GatewayError(
                    status: .serviceUnavailable, code: "UNAVAILABLE",
                    message: "The gateway is not ready: token signing certificates are not loaded, or a required store is unreachable.",
                    reason: "not_ready", retryAfter: 5
                )
            }
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
