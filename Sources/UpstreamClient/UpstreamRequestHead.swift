package import HTTPTypes
package import HTTPWire
package import NIOCore

/// A request for an upstream, made as bytes and ready to send (and to send again, on a retry): as SwiftNIO's encoder
/// writes the same request, `Host` from the authority first, then the fields (written here by the caller's header
/// rules, with no `HTTPFields` in between), then the body when the client's came whole with its head.
package struct UpstreamRequestHead: FieldOutput {
    package let method: HTTPRequest.Method
    package private(set) var bytes: ByteBuffer
    /// The request carries a body (a request with one is not sent again on a new connection: its body is not kept).
    package private(set) var hasBody = false
    /// The body streams after the head (``UpstreamConnection/sendBody(_:chunked:)``).
    package private(set) var streams = false
    /// A body that streams after the head is sent in chunks.
    package private(set) var chunked = false

    /// The request line and `Host`.
    package init(method: HTTPRequest.Method, path: String, authority: String, allocator: ByteBufferAllocator) {
        self.method = method
        self.bytes = allocator.buffer(capacity: 1024)
        self.bytes.writeString(method.rawValue)
        self.bytes.writeStaticString(" ")
        self.bytes.writeString(path)
        self.bytes.writeStaticString(" HTTP/1.1\r\nHost: ")
        self.bytes.writeString(authority)
        self.bytes.writeStaticString("\r\n")
    }

    package mutating func append(_ field: HTTPField) {
        self.bytes.append(field)
    }

    /// Ends the head, framing the body by its length, and appends the body. A request without one whose client
    /// declared an (empty) body, or whose method's requests carry one (POST, PUT, PATCH), says so with `Content-Length: 0`.
    package mutating func end(body: ByteBuffer? = nil, clientSentLength: Bool) {
        if let body, body.readableBytes > 0 {
            self.hasBody = true
            self.bytes.writeStaticString("content-length: ")
            self.bytes.writeString(String(body.readableBytes))
            self.bytes.writeStaticString("\r\n\r\n")
            self.bytes.writeImmutableBuffer(body)
            return
        }
        if clientSentLength || self.method == .post || self.method == .put || self.method == .patch {
            self.bytes.writeStaticString("content-length: 0\r\n")
        }
        self.bytes.writeStaticString("\r\n")
    }

    /// Ends the head of a request whose body streams after it: with its length when the client gave one, else
    /// chunked. The framing is always written out, whatever the method: a body after a head that declares none would
    /// be read by the upstream as a request of its own.
    package mutating func end(streaming framing: RequestBodyFraming) {
        self.hasBody = true
        self.streams = true
        if case .length(let length) = framing {
            self.bytes.writeStaticString("content-length: ")
            self.bytes.writeString(String(length))
            self.bytes.writeStaticString("\r\n\r\n")
        } else {
            self.chunked = true
            self.bytes.writeStaticString("transfer-encoding: chunked\r\n\r\n")
        }
    }
}
