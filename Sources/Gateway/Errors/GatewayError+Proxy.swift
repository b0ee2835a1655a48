import HTTPTypes

extension GatewayError {
    /// The upstream could not be reached, refused or reset the connection, or broke off before answering.
    /// - Parameter reason: a metric-safe label (what failed, or an error type name).
    static func upstreamUnreachable(reason: String) -> GatewayError {
        GatewayError(
            status: .badGateway, code: "UPSTREAM_ERROR", message: "The upstream service could not be reached.",
            reason: "upstream_\(reason)"
        )
    }

    /// The upstream did not start answering within the route's `timeout_seconds`.
    static func upstreamTimeout() -> GatewayError {
        GatewayError(
            status: .gatewayTimeout, code: "UPSTREAM_TIMEOUT", message: "The upstream service did not answer in time.",
            reason: "upstream_timeout"
        )
    }

    /// A proxied path with a `.` or `..` segment, which could climb out of the upstream's base path.
    static func dotSegmentInPath() -> GatewayError {
        .invalidArgument("The path must not contain '.' or '..' segments.", reason: "dot_segment")
    }

    /// The caller's uid cannot go to the upstream unchanged in `X-User-Id`: refused, because passed on altered it
    /// could name another user (see ``UpstreamRequestHeaders/canCarry(_:)``).
    static func uidNotForwardable() -> GatewayError {
        GatewayError(
            status: .forbidden, code: "PERMISSION_DENIED",
            message: "This account's uid cannot be passed to the upstream service unchanged, so the request is refused.",
            reason: "uid_not_forwardable"
        )
    }

    /// The client's request body could not be read to the end (malformed, or the client went away).
    static func unreadableRequestBody() -> GatewayError {
        .invalidArgument("The request body could not be read.", reason: "unreadable_body")
    }
}
