import Foundation
import HTTPTypes
import HummingbirdCore
import NIOCore
import Testing
import TestSupport

@testable import Gateway
@testable import GatewayConfig

/// Request smuggling guards (RFC 9112 §6.1, §6.3, §3.2, §11.2) on built-in and proxied routes, and what happens to a
/// connection after a request the parser cannot finish reading: one answer, and a broken body never passed on as
/// a whole one.
@Suite("Request framing and smuggling")
struct RequestFramingTests {
    /// A framing vector: the fields after `Host: a`, and the body bytes after the head. Each is followed on the
    /// same connection by `GET /healthz`, which must never be answered (it would be a smuggled request).
    struct Vector: Sendable, CustomStringConvertible {
        let description: String
        let fields: String
        let body: String
    }

    static let vectors: [Vector] = [
        // Refused by llhttp itself:
        Vector(description: "Content-Length and Transfer-Encoding", fields: "Content-Length: 6\r\nTransfer-Encoding: chunked\r\n", body: "0\r\n\r\nG"),
        Vector(description: "Transfer-Encoding and Content-Length", fields: "Transfer-Encoding: chunked\r\nContent-Length: 6\r\n", body: "0\r\n\r\nG"),
        Vector(description: "a final coding other than chunked", fields: "Transfer-Encoding: chunked, gzip\r\n", body: "0\r\n\r\n"),
        Vector(description: "gzip only", fields: "Transfer-Encoding: gzip\r\n", body: "hello"),
        Vector(description: "chunked twice", fields: "Transfer-Encoding: chunked, chunked\r\n", body: "0\r\n\r\n"),
        Vector(description: "chunked with a parameter", fields: "Transfer-Encoding: chunked;x=1\r\n", body: "0\r\n\r\n"),
        Vector(description: "two different Content-Lengths", fields: "Content-Length: 5\r\nContent-Length: 6\r\n", body: "hello!"),
        Vector(description: "two equal Content-Lengths", fields: "Content-Length: 5\r\nContent-Length: 5\r\n", body: "hello"),
        Vector(description: "a Content-Length list", fields: "Content-Length: 5, 5\r\n", body: "hello"),
        // Let through by llhttp, refused by RequestFraming:
        Vector(description: "gzip, chunked", fields: "Transfer-Encoding: gzip, chunked\r\n", body: "5\r\nhello\r\n0\r\n\r\n"),
        Vector(description: "identity, chunked", fields: "Transfer-Encoding: identity, chunked\r\n", body: "5\r\nhello\r\n0\r\n\r\n"),
        Vector(description: "a list starting with a comma", fields: "Transfer-Encoding: ,chunked\r\n", body: "5\r\nhello\r\n0\r\n\r\n"),
        Vector(description: "two Transfer-Encoding lines", fields: "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n", body: "5\r\nhello\r\n0\r\n\r\n"),
        Vector(description: "two Host lines", fields: "Host: b\r\nContent-Length: 5\r\n", body: "hello"),
    ]

    static let smuggled = "GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n"

    /// Sends `vector` to `path`, with a request behind it; expects one JSON 400 `MALFORMED_REQUEST` and the close.
    static func expectRefused(_ vector: Vector, path: String, port: Int, extraFields: String = "", version: String = "HTTP/1.1") async throws {
        let request = "POST \(path) \(version)\r\nHost: a\r\n\(extraFields)\(vector.fields)\r\n\(vector.body)"
        try await Self.expectRefused(request, port: port, vector: vector)
    }

    /// Sends `request` with a request behind it; expects one JSON 400 `MALFORMED_REQUEST` and the close.
    static func expectRefused(_ request: String, port: Int, vector: some CustomStringConvertible) async throws {
        let outcome = await RawHTTPExchange(heads: [false, false], halfClose: false, stallSeconds: 5)
            .run(port: port, bytes: Array((request + Self.smuggled).utf8))
        #expect(outcome.ending == .closed, "\(vector): \(outcome.ending)")
        #expect(outcome.responses.count == 1, "\(vector): \(outcome.responses.map(\.status))")
        let answer = try #require(outcome.responses.first, "\(vector)")
        #expect(answer.status == 400, "\(vector)")
        let json = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
        #expect((json?["error"] as? [String: Any])?["code"] as? String == "MALFORMED_REQUEST", "\(vector)")
        #expect(answer.field("Connection")?.lowercased() == "close", "\(vector)")
    }

    /// Sends each of `refused` (each must be a JSON 400 and the close), then `served` (a 200): only `served` reaches
    /// the upstream.
    static func expectOnlyServed(_ served: String, refusing refused: [String], gateway: GatewayHarness, upstream: UpstreamTestServer) async throws {
        for request in refused {
            try await Self.expectRefused(request, port: gateway.port, vector: request)
        }
        #expect(upstream.requestCount == 0)
        let outcome = await RawHTTPExchange(heads: [false], halfClose: false, stallSeconds: 5).run(port: gateway.port, bytes: Array(served.utf8))
        #expect(outcome.responses.map(\.status) == [200], "\(served)")
        #expect(upstream.requestCount == 1)
    }

    @Test("built-in routes: ambiguous framing and a second Host are a JSON 400, the connection closes, nothing behind runs")
    func builtinRoutes() async throws {
        try await GatewayHarness.run(configure: Self.dev) { gateway in
            for vector in Self.vectors {
                try await Self.expectRefused(vector, path: "/functions/v1/extract-scenes", port: gateway.port, extraFields: "X-User-Id: kid\r\n")
            }
            // Nothing reached the function (the refusals are counted without a route).
            let metrics = try await gateway.settledMetrics()
            #expect(!metrics.contains("route=\"extract-scenes\""))
        }
    }

    @Test("upstream routes: the same requests never reach the upstream")
    func upstreamRoutes() async throws {
        try await ProxyFixture.run { gateway, upstream in
            for vector in Self.vectors {
                try await Self.expectRefused(vector, path: "/open/echo", port: gateway.port)
            }
            #expect(upstream.requestCount == 0)
        }
    }

    @Test("a chunked body reaches the upstream chunked on every method: a request inside it is never one of its own")
    func chunkedBodyOnEveryMethod() async throws {
        try await ProxyFixture.run { gateway, upstream in
            // SwiftNIO's encoder frames a body by itself only for POST, PUT and PATCH. On the others, a body sent after
            // a head that declared none was read by the upstream as this request, past every rule of the gateway.
            let inner = "GET /base/status/299 HTTP/1.1\r\nHost: a\r\n\r\n"
            let methods = ["GET", "DELETE", "OPTIONS", "POST", "PUT", "PATCH"]
            for method in methods {
                let request =
                    "\(method) /open/echo HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + String(inner.utf8.count, radix: 16) + "\r\n" + inner + "\r\n0\r\n\r\n"
                let outcome = await RawHTTPExchange(heads: [false], halfClose: false, stallSeconds: 5)
                    .run(port: gateway.port, bytes: Array(request.utf8))
                let answer = try #require(outcome.responses.first, "\(method): \(outcome.ending)")
                #expect(answer.status == 200, "\(method)")
                let echo = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
                #expect(echo?["method"] as? String == method)
                #expect(echo?["bodyBytes"] as? Int == inner.utf8.count, "\(method)")
                let headers = (echo?["headers"] as? [[String]]) ?? []
                #expect(headers.contains { $0.first?.lowercased() == "transfer-encoding" && $0.last == "chunked" }, "\(method): \(headers)")
            }
            // The echo read each body whole before answering: any request inside one would have been counted by now.
            #expect(upstream.requestCount == methods.count)
        }
    }

    @Test("HTTP/1.0 with Transfer-Encoding has faulty framing (RFC 9112 §6.1): a JSON 400 and the close, nothing forwarded")
    func http10TransferEncoding() async throws {
        try await ProxyFixture.run { gateway, upstream in
            let vector = Vector(description: "HTTP/1.0 chunked", fields: "Transfer-Encoding: chunked\r\n", body: "5\r\nhello\r\n0\r\n\r\n")
            try await Self.expectRefused(vector, path: "/open/echo", port: gateway.port, version: "HTTP/1.0")
            try await Self.expectRefused(vector, path: "/healthz", port: gateway.port, version: "HTTP/1.0")
            #expect(upstream.requestCount == 0)
            // HTTP/1.0 itself is served, with a body and without.
            let outcome = await RawHTTPExchange(heads: [false, false], halfClose: false, stallSeconds: 5).run(
                port: gateway.port,
                bytes: Array("GET /open/echo HTTP/1.0\r\nHost: a\r\nConnection: keep-alive\r\n\r\nPOST /open/echo HTTP/1.0\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi".utf8)
            )
            #expect(outcome.responses.map(\.status) == [200, 200])
            #expect(upstream.requestCount == 2)
        }
    }

    @Test(
        "an HTTP/1.1 request without Host is a JSON 400 and the close (RFC 9112 §3.2); HTTP/1.0 may omit it"
    )
    func missingHost() async throws {
        try await ProxyFixture.run { gateway, upstream in
            try await Self.expectOnlyServed(
                "GET /open/echo HTTP/1.0\r\n\r\n",
                refusing: [
                    "GET /open/echo HTTP/1.1\r\n\r\n", "GET /healthz HTTP/1.1\r\nX-Host: a\r\n\r\n",
                    "GET http://a/open/echo HTTP/1.1\r\n\r\n", "POST /open/echo HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi",
                ],
                gateway: gateway, upstream: upstream
            )
        }
    }

    @Test(
        "a request target with a fragment is a JSON 400 and the close (RFC 9112 §3.2), nothing forwarded"
    )
    func fragment() async throws {
        try await ProxyFixture.run { gateway, upstream in
            let targets = ["/open/echo#x", "/open/echo?q=1#x", "/open/#/../../healthz", "/healthz#", "http://a/open/echo#x"]
            try await Self.expectOnlyServed(
                // `#` percent-encoded is a path character like any other.
                "GET /open/x%23y/echo?q=%23 HTTP/1.1\r\nHost: a\r\n\r\n",
                refusing: targets.map { "GET \($0) HTTP/1.1\r\nHost: a\r\n\r\n" } + ["POST /open/echo#x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi"],
                gateway: gateway, upstream: upstream
            )
        }
    }

    @Test("a Host that is not host[:port] is a JSON 400 and the close (RFC 9112 §3.2)")
    func invalidHost() async throws {
        try await ProxyFixture.run { gateway, upstream in
            for host in ["a b", "exa mple.com:443", "a:b", "[::1", "a/b", "user@a", "a:80:81", "%zz"] {
                for target in ["/open/echo", "/healthz"] {
                    try await Self.expectRefused("GET \(target) HTTP/1.1\r\nHost: \(host)\r\n\r\n", port: gateway.port, vector: "Host: \(host)")
                }
            }
            #expect(upstream.requestCount == 0)
            let outcome = await RawHTTPExchange(heads: [false, false], halfClose: false, stallSeconds: 5).run(
                port: gateway.port,
                bytes: Array("GET /open/echo HTTP/1.1\r\nHost: [::1]:8080\r\n\r\nGET /open/echo HTTP/1.1\r\nHost: \r\n\r\n".utf8)
            )
            #expect(outcome.responses.map(\.status) == [200, 200])
        }
    }

    @Test("an absolute-form target's authority is the request's host, not Host (RFC 9112 §3.2.2)")
    func absoluteForm() async throws {
        try await ProxyFixture.run { gateway, upstream in
            let outcome = await RawHTTPExchange(heads: [false, false], halfClose: false, stallSeconds: 5).run(
                port: gateway.port,
                bytes: Array(
                    ("GET http://b.example:8080/open/echo?q=1 HTTP/1.1\r\nHost: a.example\r\n\r\n"
                        + "GET /open/echo HTTP/1.1\r\nHost: a.example\r\n\r\n").utf8
                )
            )
            #expect(outcome.responses.map(\.status) == [200, 200])
            let hosts = outcome.responses.map { response -> [String] in
                let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
                let headers = (json?["headers"] as? [[String]]) ?? []
                return headers.filter { $0.first?.lowercased() == "x-forwarded-host" }.compactMap { $0.last }
            }
            #expect(hosts == [["b.example:8080"], ["a.example"]])
            #expect(upstream.requestCount == 2)
        }
    }

    @Test("absolute-form authorities", arguments: [
        ("/api/x", nil), ("http://b.example/api/x", "b.example"), ("HTTP://b.example:8080?q", "b.example:8080"),
        ("https://[::1]:443/x", "[::1]:443"), ("http://user@b.example/x", "b.example"), ("*", nil), ("b.example:443", nil),
        ("ftp://b.example/x", nil),
    ] as [(String, String?)])
    func absoluteFormAuthority(target: String, authority: String?) {
        #expect(RequestLineRules.absoluteFormAuthority(target) == authority)
    }

    @Test("Host values: uri-host and an optional port (RFC 3986 §3.2.2)", arguments: [
        ("", true), ("a", true), ("a:", true), ("a:80", true), ("127.0.0.1:8080", true), ("[::1]", true), ("[::1]:443", true),
        ("[v1.fe80::a+en1]", true), ("[fe80::1%25eth0]:80", true), ("xn--bcher-kva.example", true), ("a%2Db", true), ("sub_domain.example~", true),
        ("a b", false), ("a:b", false), ("[::1", false), ("[]", false), ("a/b", false), ("user@a", false), ("a:80:81", false),
        ("%zz", false), ("a%2", false), ("[::1]x", false), ("é.example", false), ("a\tb", false),
    ])
    func hostValues(_ value: String, valid: Bool) {
        #expect(RequestFraming.isValidHost(value) == valid)
    }

    @Test("exactly chunked passes, in any case and with surrounding spaces; one Content-Length passes")
    func acceptedFraming() throws {
        func check(_ fields: HTTPFields) throws {
            let request = Request(head: HTTPRequest(method: .post, scheme: "http", authority: "a", path: "/", headerFields: fields), body: .init(buffer: ByteBuffer()))
            try RequestFraming.check(request.head)
        }
        for value in ["chunked", "Chunked", "CHUNKED", " chunked", "chunked\t"] {
            #expect(throws: Never.self, "\(value)") { try check([.transferEncoding: value]) }
        }
        #expect(throws: Never.self) { try check([.contentLength: "0"]) }
        #expect(throws: Never.self) { try check([.contentLength: "007"]) }
        #expect(throws: GatewayError.self) { try check([.contentLength: "-1"]) }
        #expect(throws: GatewayError.self) { try check([.transferEncoding: "gzip, chunked"]) }
        #expect(throws: GatewayError.self) { try check([.transferEncoding: "chunked", .contentLength: "5"]) }
    }

    @Test("a CONNECT or upgrade request is answered and the connection closed: nothing pipelined behind it waits")
    func connectAndUpgrade() async throws {
        try await ProxyFixture.run { gateway, upstream in
            for first in [
                "CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n", "CONNECT /open/echo HTTP/1.1\r\nHost: a\r\n\r\n",
                "GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
                "GET /open/echo HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n",
            ] {
                let outcome = await RawHTTPExchange(heads: [false, false], halfClose: false, stallSeconds: 3)
                    .run(port: gateway.port, bytes: Array((first + Self.smuggled).utf8))
                // Before the fix: the answer, then silence until the idle timeout (SwiftNIO stops parsing after
                // a CONNECT or an upgrade request, and an answer to CONNECT carries no body nor length).
                #expect(outcome.ending == .closed, "\(first): \(outcome.ending)")
                #expect(outcome.responses.count == 1, "\(first)")
                #expect(outcome.responses.first?.field("Connection")?.lowercased() == "close", "\(first)")
                guard first.hasPrefix("CONNECT"), let answer = outcome.responses.first else { continue }
                // SwiftNIO's encoder drops the body of every answer to CONNECT: the guard writes it (a 404 for a
                // host:port target, a 405 with the route's Allow for a path), JSON with its length.
                #expect(answer.errorCode == (answer.status == 404 ? "NOT_FOUND" : "METHOD_NOT_ALLOWED"), "\(first): \(outcome.raw)")
                #expect(answer.field("Content-Length") == String(answer.body.count), "\(first)")
                #expect(answer.status == 404 || answer.field("Allow")?.contains("GET") == true, "\(first): \(answer.status)")
            }
            #expect(upstream.requestCount == 1)  // the upgrade request to /open/echo, without its Upgrade
        }
    }

    @Test("an HTTP/1.0 request without keep-alive, or any request asking to close, gets Connection: close and the close (RFC 9112 §9.3, §9.6)")
    func http10ClosesUnlessKeepAlive() async throws {
        try await ProxyFixture.run { gateway, _ in
            for request in [
                "GET /healthz HTTP/1.0\r\n\r\n", "GET /open/echo HTTP/1.0\r\nHost: a\r\n\r\n", "GET /nowhere HTTP/1.0\r\n\r\n",
                "HEAD /healthz HTTP/1.0\r\n\r\n", "GET /healthz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
                "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /open/echo HTTP/1.0\r\nHost: a\r\n\r\n",
            ] {
                let keptAlive = request.contains("keep-alive")
                let heads = request.hasPrefix("HEAD") ? [true, true] : [false, false]
                // One answer more than the requests is waited for: the connection must close instead.
                let outcome = await RawHTTPExchange(heads: keptAlive ? heads + [false] : heads, halfClose: false, stallSeconds: 3)
                    .run(port: gateway.port, bytes: Array(request.utf8))
                #expect(outcome.ending == .closed, "\(request): \(outcome.ending)")
                #expect(outcome.responses.count == (keptAlive ? 2 : 1), "\(request)")
                #expect(outcome.responses.last?.field("Connection")?.lowercased() == "close", "\(request)")
                if keptAlive { #expect(outcome.responses.first?.field("Connection") == nil, "\(request)") }
            }
        }
    }

    @Test("an unreadable request behind pipelined ones is answered after them, in order, then the connection closes")
    func unreadableBehindPipelined() async throws {
        try await ProxyFixture.run { gateway, _ in
            // The bytes behind the first request cannot be read, and may arrive before its answer is written: the
            // first answer still goes out first, then the 400 for the bytes, then the close.
            for first in ["GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n", "GET /open/echo HTTP/1.1\r\nHost: a\r\n\r\n"] {
                // A third answer is waited for: the connection must close instead.
                let outcome = await RawHTTPExchange(heads: [false, false, false], halfClose: false, stallSeconds: 3)
                    .run(port: gateway.port, bytes: Array((first + "GARBAGE\r\n\r\n").utf8))
                #expect(outcome.responses.map(\.status) == [200, 400], "\(first): \(outcome.raw)")
                #expect(outcome.ending == .closed, "\(first)")
                #expect(outcome.responses.last?.errorCode == "MALFORMED_REQUEST", "\(first)")
            }
        }
    }

    @Test("a CONNECT refused before routing (no Host) still carries its JSON error")
    func connectWithoutHost() async throws {
        try await ProxyFixture.run { gateway, _ in
            let outcome = await RawHTTPExchange(heads: [false], halfClose: false, stallSeconds: 3)
                .run(port: gateway.port, bytes: Array("CONNECT a:443 HTTP/1.1\r\n\r\n".utf8))
            #expect(outcome.responses.map(\.status) == [400], "\(outcome.raw)")
            #expect(outcome.responses.first?.errorCode == "MALFORMED_REQUEST", "\(outcome.raw)")
            #expect(outcome.responses.first?.field("Content-Length") == outcome.responses.first.map { String($0.body.count) })
        }
    }

    // MARK: Requests the parser cannot finish

    static func dev(_ configuration: inout GatewayConfiguration) {
        configuration.mode = .dev
        configuration.firebaseProjectID = nil
        configuration.openAIAPIKey = nil
    }

    /// A gateway in front of a ``RecordingUpstream`` at `/rec/`.
    static func withRecordedGateway(_ body: @Sendable (GatewayHarness, RecordingUpstream) async throws -> Void) async throws {
        try await withRecordingUpstream { upstream in
            try await GatewayHarness.run(configure: { configuration in
                configuration.routes.append(
                    RouteConfiguration(path: .prefix("/rec/"), target: .upstream(UpstreamURL("http://127.0.0.1:\(upstream.port)/base")!), auth: .none)
                )
            }) { gateway in
                try await body(gateway, upstream)
            }
        }
    }

    @Test("a chunked body broken by a malformed chunk or cut off by the client never reaches the upstream whole")
    func brokenBodyNotForwardedWhole() async throws {
        try await Self.withRecordedGateway { gateway, upstream in
            let head = "POST /rec/x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"
            let malformed = await RawHTTPExchange(heads: [false], halfClose: false, stallSeconds: 5)
                .run(port: gateway.port, bytes: Array((head + "zz\r\n").utf8))
            #expect(malformed.responses.map(\.status) == [400])
            let cutOff = await RawHTTPExchange(heads: [false], halfClose: true, stallSeconds: 5).run(port: gateway.port, bytes: Array(head.utf8))
            #expect(cutOff.responses.allSatisfy { $0.status == 400 })
            // Whatever reached the upstream, it never ended with the last chunk: the body was not passed on as whole.
            try await Task.sleep(for: .milliseconds(300))
            #expect(upstream.completeChunkedRequests == 0, "\(upstream.received.map { String(decoding: $0.suffix(40), as: UTF8.self) })")
            // A whole one does get through (the recorder answers it).
            let whole = await RawHTTPExchange(heads: [false], halfClose: false, stallSeconds: 5)
                .run(port: gateway.port, bytes: Array((head + "0\r\n\r\n").utf8))
            #expect(whole.responses.map(\.status) == [200])
        }
    }

    @Test("a function's body broken off is refused, never run as if whole, never a 500")
    func brokenFunctionBody() async throws {
        try await GatewayHarness.run(configure: Self.dev) { gateway in
            let json = #"{"story_content":"Once upon a time. The end.","target_scene_count":2}"#
            let request =
                "POST /functions/v1/extract-scenes HTTP/1.1\r\nHost: a\r\nX-User-Id: kid\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n" + String(json.utf8.count, radix: 16) + "\r\n" + json + "\r\nzz\r\n"
            let outcome = await RawHTTPExchange(heads: [false], halfClose: false, stallSeconds: 5).run(port: gateway.port, bytes: Array(request.utf8))
            #expect(outcome.responses.map(\.status) == [400])
            try await Task.sleep(for: .milliseconds(200))
            let metrics = try await gateway.settledMetrics()
            #expect(!metrics.contains("route=\"extract-scenes\",status=\"200\""), "the function ran on a broken body")
            #expect(!metrics.contains("status=\"500\""))
        }
    }

    @Test("a malformed chunk after the request was answered: no second answer, the connection closes")
    func parseErrorAfterAnswer() async throws {
        try await GatewayHarness.run { gateway in
            let connection = try RawConnection(port: gateway.port)
            connection.send("GET /healthz HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
            let first = await connection.read(for: 3) { (try? RawHTTPExchange.parse($0, heads: [false], closed: false).get().count) == 1 }
            #expect(String(decoding: first.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            connection.send("zz\r\n")
            let rest = await connection.read(for: 3)
            #expect(rest.closed)
            #expect(rest.bytes.isEmpty, "a second answer: \(String(decoding: rest.bytes, as: UTF8.self).prefix(80))")
        }
    }

    @Test("a malformed chunk while the answer streams: no answer is injected into it, the connection closes")
    func parseErrorMidAnswer() async throws {
        try await ProxyFixture.run { gateway, _ in
            let connection = try RawConnection(port: gateway.port)
            connection.send("POST /open/mirror HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
            let first = await connection.read(for: 3) { String(decoding: $0, as: UTF8.self).contains("hello") }
            #expect(String(decoding: first.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            connection.send("zz\r\n")
            let rest = await connection.read(for: 3)
            #expect(rest.closed)
            #expect(!String(decoding: rest.bytes, as: UTF8.self).contains("HTTP/1.1"), "\(String(decoding: rest.bytes, as: UTF8.self).prefix(80))")
        }
    }

    @Test("a client that resets right after its request cancels the upstream exchange at once, not at the route's timeout")
    func resetBeforeUpstreamExchange() async throws {
        try await ProxyFixture.run { gateway, _ in
            for _ in 0..<5 {
                let connection = try RawConnection(port: gateway.port)
                connection.send("GET /open/hang HTTP/1.1\r\nHost: a\r\n\r\n")
                connection.reset()
            }
            // Nothing is in flight once the five are cancelled (the route's timeout is 30 s; the scrape is on the admin
            // listener).
            var inFlight = ""
            for _ in 0..<40 {
                try await Task.sleep(for: .milliseconds(50))
                inFlight = try await gateway.admin("/metrics").text.split(separator: "\n").first { $0.hasPrefix("storygate_http_requests_in_flight ") }.map(String.init) ?? ""
                if inFlight == "storygate_http_requests_in_flight 0.0" { break }
            }
            #expect(inFlight == "storygate_http_requests_in_flight 0.0")
        }
    }
}
