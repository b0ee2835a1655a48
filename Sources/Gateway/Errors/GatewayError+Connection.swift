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
                GatewayError(status: .badRequest, code: "MALFORMED_REQUEST", message: Self.message(reason), reason: reason)
            }
        error.headers[.connection] = "close"
        return error
    }

    /// What a client can fix, per reason: fixed sentences, never the request's own bytes.
    static func message(_ reason: String) -> String {
        switch reason {
        case "invalid_method":
            "The request does not start with a method and one space (TLS sent to a plain-HTTP port reads this way)."
        case "invalid_version":
            "The request line's version is not HTTP/1.1 or HTTP/1.0; this port does not speak HTTP/2 or later."
        case "invalid_target":
            "The request target is not valid: send an origin-form path of visible ASCII (percent-encode the rest)."
        case "fragment_in_target": "The request target carries a fragment (#…); fragments are not sent in HTTP."
        case "asterisk_form": "The target `*` is only for OPTIONS."
        case "missing_host": "An HTTP/1.1 request needs a Host header."
        case "duplicate_host": "Send exactly one Host header."
        case "invalid_host": "The Host header (or the target's authority) is not a valid host and port."
        case "length_and_chunked": "Transfer-Encoding and Content-Length are both present; send only one of them."
        case "transfer_encoding": "The only Transfer-Encoding read is a single `chunked`, and not on HTTP/1.0."
        case "chunked_in_http10": "Transfer-Encoding: chunked is not allowed in an HTTP/1.0 request."
        case "content_length": "Send at most one Content-Length, of digits only."
        case "repeated_app_check": "Send exactly one X-Firebase-AppCheck header."
        case "obs_fold": "A header line is folded (starts with whitespace); obsolete line folding is not accepted."
        case "invalid_field_name": "A header line has no valid field name followed directly by a colon."
        case "invalid_field_value": "A header value contains a control character or a bare line feed."
        case "bare_cr": "A carriage return is not followed by a line feed; lines end with CRLF."
        default: "The request is not valid HTTP/1.1."
        }
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
