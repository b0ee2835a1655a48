package import HTTPTypes

/// A request head as read from the connection (``RawRequestHead``): the request, the two token fields kept apart,
/// and what the connection needs to frame it.
package struct RequestHead {
    /// Method, scheme `http`, the `Host` value as authority, the target as path; the other fields in order.
    package var request: HTTPRequest
    /// The `Authorization` value, not among `request`'s fields (a token of about 1 KB, read once by the rules).
    package var authorization: String?
    /// The `X-Firebase-AppCheck` value, kept apart as `authorization`.
    package var appCheck: String?
    /// The head's bytes, up to and including the empty line.
    package var length: Int
    /// How the body after the head is framed.
    package var body: RequestBodyFraming
    /// The connection closes after the answer (RFC 9112 §9.6).
    package var closesConnection: Bool
    /// `Expect: 100-continue`: the client waits for an interim `100 Continue` before it sends its body (RFC 9110
    /// §10.1.1). The field is the connection's, not passed on.
    package var expectsContinue: Bool
    /// The client reads a chunked answer (HTTP/1.1). To an HTTP/1.0 client, an answer of unknown length is delimited
    /// by the connection's close (RFC 9112 §6.1, §6.3).
    package var readsChunked = true
}

/// How a request's body is delimited (RFC 9112 §6.3).
package enum RequestBodyFraming: Equatable {
    case none
    /// `Content-Length`; `Int.max` stands for any length that large or larger.
    case length(Int)
    /// `Transfer-Encoding: chunked`.
    case chunked
}
