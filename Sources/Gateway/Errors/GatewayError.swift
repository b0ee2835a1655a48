public import HTTPTypes

/// Every error the gateway answers with: an HTTP status, a stable `code` the app switches on, a client-safe
/// message, and where it applies `retryAfter` and a `WWW-Authenticate` challenge.
///
/// Rendered to JSON in one place (`ErrorResponse`). Internal errors are never interpolated into messages.
public struct GatewayError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: HTTPResponse.Status
    /// Stable machine-readable code, e.g. `UNAUTHENTICATED`.
    public let code: String
    /// A sentence for people; never a token, key or other secret.
    public let message: String
    /// Seconds until a retry may succeed (`Retry-After`).
    public var retryAfter: Int?
    /// Headers the answer carries besides the JSON body: `WWW-Authenticate` (RFC 6750 §3), `Allow`,
    /// `RateLimit-Policy` and `RateLimit`.
    public var headers = HTTPFields()
    /// A label for metrics and logs: the reason behind the code (e.g. `expired`).
    public let reason: String

    public init(status: HTTPResponse.Status, code: String, message: String, reason: String? = nil, retryAfter: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.reason = reason ?? code.lowercased()
        self.retryAfter = retryAfter
    }

    public var description: String { "\(self.code): \(self.message)" }

    public static func invalidArgument(_ message: String, reason: String = "invalid_argument") -> GatewayError {
        GatewayError(status: .badRequest, code: "INVALID_ARGUMENT", message: message, reason: reason)
    }

    public static func notFound() -> GatewayError {
        GatewayError(status: .notFound, code: "NOT_FOUND", message: "No route matches this path.")
    }

    public static func methodNotAllowed(allowed: [HTTPRequest.Method]) -> GatewayError {
        var error = GatewayError(
            status: .methodNotAllowed, code: "METHOD_NOT_ALLOWED", message: "This path does not accept that method."
        )
        error.headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
        return error
    }

    /// Bytes the HTTP/1.1 parser cannot read.
    public static func malformedRequest() -> GatewayError {
        GatewayError(status: .badRequest, code: "MALFORMED_REQUEST", message: "The request is not valid HTTP/1.1.")
    }

    /// No more of the request body came within the server's `body_timeout_seconds` (RFC 9110 §15.5.9).
    public static func requestTimeout() -> GatewayError {
        GatewayError(status: .requestTimeout, code: "REQUEST_TIMEOUT", message: "The rest of the request body did not arrive in time.")
    }

    /// A header section over the server's size or field-count limit.
    public static func headersTooLarge() -> GatewayError {
        GatewayError(
            status: .requestHeaderFieldsTooLarge, code: "HEADERS_TOO_LARGE",
            message: "The request's header section is larger than this gateway accepts."
        )
    }

    public static func internalError() -> GatewayError {
        GatewayError(status: .internalServerError, code: "INTERNAL", message: "The gateway failed to handle the request.")
    }
}
