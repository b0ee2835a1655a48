/// Why ``RawRequestHead`` refused a request head. Either way the connection closes after the answer: nothing after
/// a head that could not be read can be framed.
package enum RequestHeadError: Error, Equatable, Sendable {
    /// The head's bytes are over the byte limit, or its field lines over the count limit (a 431
    /// `HEADERS_TOO_LARGE`, RFC 6585 §5).
    case tooLarge
    /// Not a request head RFC 9112 allows, or one whose framing could be read two ways (a 400
    /// `MALFORMED_REQUEST`); `reason` is a short snake_case label for logs and metrics.
    case malformed(reason: String)
}
