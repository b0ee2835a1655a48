import HTTPTypes

extension GatewayError {
    /// An `Idempotency-Key` that is not one structured-field string of 1 to 255 characters, or appears twice.
    static func invalidIdempotencyKey() -> GatewayError {
        GatewayError(
            status: .badRequest, code: "INVALID_IDEMPOTENCY_KEY",
            message: "Idempotency-Key must be one quoted string of 1 to 255 characters, e.g. \"8e03978e-40d5-43e8-bc93-6894a57f9324\"."
        )
    }

    static func idempotencyKeyRequired() -> GatewayError {
        GatewayError(status: .badRequest, code: "IDEMPOTENCY_KEY_REQUIRED", message: "This route needs an Idempotency-Key.")
    }

    /// The same key and request while its first run goes on, and this request could not wait for it.
    static func idempotencyInFlight(retryAfter: Int) -> GatewayError {
        GatewayError(
            status: .conflict, code: "IDEMPOTENCY_IN_FLIGHT",
            message: "A request with this Idempotency-Key is still running; retry later to get its answer.", retryAfter: retryAfter
        )
    }

    static func idempotencyKeyReused() -> GatewayError {
        GatewayError(
            status: .unprocessableContent, code: "IDEMPOTENCY_KEY_REUSED",
            message: "This Idempotency-Key was used for another request; use a new key for a new request."
        )
    }

    /// The idempotency store is unreachable and `IDEMPOTENCY_FAILURE_POLICY=closed`.
    static func idempotencyUnavailable() -> GatewayError {
        GatewayError(
            status: .serviceUnavailable, code: "IDEMPOTENCY_UNAVAILABLE",
            message: "Requests with an Idempotency-Key cannot be accepted right now.", retryAfter: 5
        )
    }

    static func queueFull(retryAfter: Int) -> GatewayError {
        GatewayError(status: .serviceUnavailable, code: "QUEUE_FULL", message: "Too many jobs are waiting; try again later.", retryAfter: retryAfter)
    }

    /// The job store is unreachable.
    static func jobsUnavailable() -> GatewayError {
        GatewayError(status: .serviceUnavailable, code: "JOBS_UNAVAILABLE", message: "Jobs cannot be reached right now.", retryAfter: 5)
    }

    /// No such job for this caller: unknown, another user's, or past its retention.
    static func jobNotFound() -> GatewayError {
        GatewayError(status: .notFound, code: "JOB_NOT_FOUND", message: "No job with this id.")
    }

    /// A function's body not declared as JSON (RFC 9110 §15.5.16).
    static func unsupportedMediaType() -> GatewayError {
        GatewayError(
            status: .unsupportedMediaType, code: "UNSUPPORTED_MEDIA_TYPE", message: "Send the body as JSON, with Content-Type: application/json."
        )
    }
}
