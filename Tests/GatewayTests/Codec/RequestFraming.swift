import HTTPTypes
import HTTPWire

@testable import Gateway

/// Part of the request fuzz's reference stack (with ``RequestLineRules``): the framing rules of RFC 9112 that the
/// HTTP/1.1 parser (llhttp, through SwiftNIO) leaves to the server, as the gateway applied them after SwiftNIO's
/// parser; ``RawRequestHead`` applies them itself now. So that neither a handler nor an upstream ever sees a request
/// whose length or target two HTTP implementations could read differently (request smuggling, RFC 9112 §11.2):
///
/// - `Transfer-Encoding` must be exactly `chunked`: one field line, one coding (§6.1). The gateway decodes no other
///   transfer coding and the proxy drops the field (it is hop-by-hop), so `gzip, chunked` would reach an upstream as
///   gzip bytes with nothing saying so. llhttp refuses a final coding other than `chunked`, and `chunked` twice, but
///   lets `gzip, chunked`, `identity, chunked` and two field lines `gzip` + `chunked` through.
/// - `Transfer-Encoding` together with `Content-Length` (§6.3 item 3; llhttp refuses it too).
/// - `Content-Length` on more than one field line, or as a list, whatever the values (§6.3 item 5 allows refusing;
///   llhttp refuses it too).
/// - More than one `Host` field line (§3.2: a server MUST answer 400). NIOHTTPTypes turns the first into the
///   request's authority and keeps any other as a `Host` field, so a field left over means a second line.
/// - A `Host` value that is not `uri-host [ ":" port ]` (§3.2: a server MUST answer 400; RFC 3986 §3.2.2).
///
/// Each refusal is a 400 `MALFORMED_REQUEST` that closes the connection (the body is not read).
/// The rules that depend on the version — `Transfer-Encoding` in an HTTP/1.0 request, an HTTP/1.1 request without
/// `Host` — are checked earlier, as the head is read (``RawRequestHead``): the HTTP types these rules read carry no
/// version.
enum RequestFraming {
    static let host = HTTPField.Name("Host")!

    /// - Throws: a 400 `MALFORMED_REQUEST` (with `Connection: close`) for the first rule the request breaks.
    static func check(_ request: HTTPRequest) throws(GatewayError) {
        let headers = request.headerFields
        guard Self.hasChunkedOrNoTransferCoding(headers) else {
            throw Self.refusal("Transfer-Encoding must be exactly 'chunked'.", reason: "transfer_encoding")
        }
        if headers.contains(.transferEncoding), headers.contains(.contentLength) {
            throw Self.refusal("Content-Length and Transfer-Encoding must not both be present.", reason: "length_and_chunked")
        }
        let lengthIsValid =
            switch headers.sole(.contentLength) {
            case .absent: true
            case .one(let length): Self.isDecimal(length)
            case .several: false
            }
        guard lengthIsValid else {
            throw Self.refusal("Content-Length must appear once, as a single number.", reason: "content_length")
        }
        if headers.contains(Self.host) {
            throw Self.refusal("A request must carry at most one Host header.", reason: "duplicate_host")
        }
        if let authority = request.authority, !Self.isValidHost(authority) {
            throw Self.refusal("The Host header is not a valid host and port.", reason: "invalid_host")
        }
    }

    /// No `Transfer-Encoding`, or exactly one field line `chunked`: the only transfer coding the gateway decodes.
    /// For any message, requests and upstream answers alike: the field is hop-by-hop and dropped when the message is
    /// passed on, so another coding would go on as its bytes with nothing saying so.
    static func hasChunkedOrNoTransferCoding(_ fields: HTTPFields) -> Bool {
        switch fields.sole(.transferEncoding) {
        case .absent: true
        case .one(let coding): Self.isExactlyChunked(coding)
        case .several: false
        }
    }

    /// `uri-host [ ":" port ]` (``HostSyntax``): the rule the request reader applies too.
    static func isValidHost(_ value: String) -> Bool {
        HostSyntax.isValid(value)
    }

    /// Whether the connection must close after this request's answer: a CONNECT or protocol-upgrade request. The
    /// parser stops reading a connection after one (it expects the protocol to change), and the gateway never
    /// switches protocols, so later bytes on it would never be answered.
    static func endsConnection(_ request: HTTPRequest) -> Bool {
        request.method == .connect || request.headerFields.contains(.upgrade)
    }

    /// `chunked` in any case, with optional whitespace around it (RFC 9110 §5.6.3, §7.8: codings are case-insensitive).
    private static func isExactlyChunked(_ value: String) -> Bool {
        var text = Substring(value)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text.lowercased() == "chunked"
    }

    private static func isDecimal(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private static func refusal(_ message: String, reason: String) -> GatewayError {
        var error = GatewayError(status: .badRequest, code: "MALFORMED_REQUEST", message: message, reason: reason)
        error.headers[.connection] = "close"
        return error
    }
}
