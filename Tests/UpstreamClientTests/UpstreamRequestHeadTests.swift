import HTTPTypes
import HTTPWire
import NIOCore
import Testing

@testable import UpstreamClient

/// `UpstreamRequestHead`: the request line, `Host`, and the body's framing, as bytes.
@Suite("Upstream request head")
struct UpstreamRequestHeadTests {
    static func head(_ method: HTTPRequest.Method) -> UpstreamRequestHead {
        UpstreamRequestHead(method: method, path: "/p?q=1", authority: "h:8080", allocator: ByteBufferAllocator())
    }

    @Test("no body: a Content-Length of 0 only when the client declared one or the method carries a body")
    func withoutBody() {
        var get = Self.head(.get)
        get.end(clientSentLength: false)
        #expect(String(buffer: get.bytes) == "GET /p?q=1 HTTP/1.1\r\nHost: h:8080\r\n\r\n")
        var declared = Self.head(.get)
        declared.end(clientSentLength: true)
        #expect(String(buffer: declared.bytes) == "GET /p?q=1 HTTP/1.1\r\nHost: h:8080\r\ncontent-length: 0\r\n\r\n")
        var post = Self.head(.post)
        post.end(clientSentLength: false)
        #expect(String(buffer: post.bytes) == "POST /p?q=1 HTTP/1.1\r\nHost: h:8080\r\ncontent-length: 0\r\n\r\n")
        #expect(!get.hasBody && !declared.hasBody && !post.hasBody)
    }

    @Test("a whole body follows the fields with its length; a streamed one is framed by its length, else chunked")
    func withBody() {
        var whole = Self.head(.post)
        whole.append(HTTPField(name: .contentType, value: "text/plain"))
        whole.end(body: ByteBuffer(string: "hello"), clientSentLength: true)
        #expect(String(buffer: whole.bytes) == "POST /p?q=1 HTTP/1.1\r\nHost: h:8080\r\nContent-Type: text/plain\r\ncontent-length: 5\r\n\r\nhello")
        #expect(whole.hasBody && !whole.streams)

        var length = Self.head(.put)
        length.end(streaming: .length(7))
        #expect(String(buffer: length.bytes) == "PUT /p?q=1 HTTP/1.1\r\nHost: h:8080\r\ncontent-length: 7\r\n\r\n")
        #expect(length.hasBody && length.streams && !length.chunked)

        var chunked = Self.head(.get)
        chunked.end(streaming: .chunked)
        #expect(String(buffer: chunked.bytes) == "GET /p?q=1 HTTP/1.1\r\nHost: h:8080\r\ntransfer-encoding: chunked\r\n\r\n")
        #expect(chunked.hasBody && chunked.streams && chunked.chunked)
    }
}
