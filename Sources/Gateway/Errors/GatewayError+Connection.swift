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
