import HTTPTypes
import HTTPWire

/// The answers to a request the connection cannot read: a head (``RequestHeadError``) or a streamed body
/// (``RequestBodyFailure``).
extension RequestHeadError {
    /// The answer to a head that cannot be read; it says `Connection: close` (nothing after the head can be framed).
    var answer: GatewayError {
        var error: GatewayError =
            switch self {
            case .tooLarge: .headersTooLarge()
            // A readable head that names two credentials: the documented 400 `INVALID_ARGUMENT` of the rules, not
            // a framing error, though the connection still closes (the body is not read).
            case .malformed(reason: "repeated_authorization"): .multipleAuthorizationHeaders()
            case .malformed(let reason):
                GatewayError(status: .badRequest, code: "MALFORMED_REQUEST", message: "The request is not valid HTTP/1.1.", reason: reason)
            }
        error.headers[.connection] = "close"
        return error
    }
}

extension RequestBodyFailure {
    /// The answer to a request whose body failed so, when none has started.
    var error: GatewayError {
        switch self {
        case .timeout: .requestTimeout()
        case .malformed(let reason):
            GatewayError(status: .badRequest, code: "MALFORMED_REQUEST", message: "The request body's chunked framing is not valid HTTP/1.1.", reason: reason)
        case .cutOff: .unreadableRequestBody()
        case .tooLarge(let limit): .payloadTooLarge(limit: limit)
        }
    }
}
