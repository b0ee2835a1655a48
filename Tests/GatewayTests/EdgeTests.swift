import CurlHTTP
import Foundation

#if canImport(Glibc)
import Glibc
#endif
#if canImport(CNIOLinux)
// Socket constants and types are defined by whichever C module included their headers first: NIO's here.
import CNIOLinux
#endif
@testable import Gateway
@testable import GatewayConfig
import IDTokens
import RateLimiting
import Synchronization
import Testing
import TestSupport

/// The edge on real sockets: the answer each kind of request gets, proxied and built-in, answers in request order
/// when a client pipelines, and the connection's behaviours (half-close, `Connection: close`, reading held for a
/// backlog, the header and idle timeouts, answers cut off at the route's timeout, retries on a stale upstream
/// connection).
@Suite("Edge")
struct EdgeTests {
    /// One request, and the answer it must get.
    struct Probe: Sendable, CustomTestStringConvertible {
        let method: String
        let path: String
        var headers: [(String, String)] = []
        var body: [UInt8]?
        let expected: Digest
        var testDescription: String {
            ([self.method + " " + self.path] + self.headers.map { "\($0.0): \($0.1.prefix(24))" }).joined(separator: ", ")
        }
    }

    static let validToken = ProxyFixture.token(uid: "edge-user")
    static let probes: [Probe] = [
        Probe(
            method: "GET", path: "/api/echo/a?x=1", headers: [("Authorization", "Bearer " + validToken)],
            expected: .echo("GET", "/base/echo/a?x=1", bodyBytes: 0, fields: ["x-user-id"], uid: ["edge-user"])
        ),
        Probe(method: "GET", path: "/api/echo", headers: [], expected: .refusal(401, "UNAUTHENTICATED", fields: ["www-authenticate"])),
        Probe(
            method: "GET", path: "/api/echo", headers: [("Authorization", "Bearer not.a.token")],
            expected: .refusal(401, "UNAUTHENTICATED", fields: ["www-authenticate"])
        ),
        Probe(
            method: "GET", path: "/api/echo", headers: [("Authorization", "Basic eDp5")],
            expected: .refusal(401, "UNAUTHENTICATED", fields: ["www-authenticate"])
        ),
        Probe(method: "HEAD", path: "/open/echo", expected: .passedOn(body: "")),
        Probe(
            method: "GET", path: "/open/status/404",
            expected: .passedOn(404, fields: ["content-length", "content-type", "x-upstream-status"], body: "19 bytes: upstream status 404")
        ),
        Probe(
            method: "GET", path: "/open/status/503",
            expected: .passedOn(503, fields: ["content-length", "content-type", "x-upstream-status"], body: "19 bytes: upstream status 503")
        ),
        Probe(method: "DELETE", path: "/hook?q=1", expected: .echo("DELETE", "/base/echo?q=1", bodyBytes: 0)),
        Probe(method: "GET", path: "/open/a/%2e%2e/secret", expected: .refusal(400, "INVALID_ARGUMENT")),
        Probe(method: "GET", path: "/slow/hang", expected: .refusal(504, "UPSTREAM_TIMEOUT")),
        // The client's identity and hop-by-hop fields do not reach the upstream; its request id does (checked apart).
        Probe(
            method: "GET", path: "/open/echo", headers: [("X-Request-ID", "client-trace-7"), ("X-User-Id", "mallory"), ("Connection", "X-Hop"), ("X-Hop", "1")],
            expected: .echo("GET", "/base/echo", bodyBytes: 0)
        ),
        Probe(method: "GET", path: "/open/echo", headers: [("Content-Length", "0")], expected: .echo("GET", "/base/echo", bodyBytes: 0, fields: ["content-length"])),
        Probe(method: "POST", path: "/open/echo", body: Array("hello".utf8), expected: .echo("POST", "/base/echo", bodyBytes: 5, fields: ["content-length"])),
        Probe(method: "GET", path: "/open/stream/100000", expected: .passedOn(body: Self.streamed)),
        Probe(method: "GET", path: "/open/stream/100000?chunked", expected: .passedOn(fields: ["content-type", "transfer-encoding"], body: Self.streamed)),
        Probe(method: "TRACE", path: "/open/echo", expected: .refusal(405, "METHOD_NOT_ALLOWED", fields: ["allow"])),
        Probe(
            method: "DELETE", path: "/v1/me", headers: [("Authorization", "Bearer " + validToken)],
            expected: .refusal(405, "METHOD_NOT_ALLOWED", fields: ["allow"])
        ),
    ]

    /// The upstream's 100,000 bytes of ``BodyPattern``, as ``Digest`` shows them.
    static let streamed = "100000 bytes: [11, 2, 229, 54, 161, 78, 214, 26]"

    /// What of an answer a probe checks: status, error code, the answer's field names (less the date), and the
    /// body (an upstream's echo reduced to what the upstream saw, less per-gateway values).
    struct Digest: Sendable, Equatable, CustomStringConvertible {
        let status: Int
        let errorCode: String?
        let fieldNames: [String]
        let body: String

        init(status: Int, errorCode: String?, fieldNames: [String], body: String) {
            self.status = status
            self.errorCode = errorCode
            self.fieldNames = fieldNames
            self.body = body
        }

        /// An error answer of the gateway's: JSON with its `code`, not to be stored, and `fields` besides.
        static func refusal(_ status: Int, _ code: String, fields: [String] = []) -> Digest {
            let names = ["cache-control", "content-length", "content-type", "x-request-id"] + fields
            return Digest(status: status, errorCode: code, fieldNames: names.sorted(), body: code)
        }

        /// An upstream's answer passed on with its `fields`, and the gateway's request id.
        static func passedOn(_ status: Int = 200, fields: [String] = ["content-length", "content-type"], body: String) -> Digest {
            Digest(status: status, errorCode: nil, fieldNames: (fields + ["x-request-id"]).sorted(), body: body)
        }

        /// The upstream's echo of what it was sent: the gateway's forwarding fields and `fields`, and `uid` as
        /// `X-User-Id`.
        static func echo(_ method: String, _ path: String, bodyBytes: Int, fields: [String] = [], uid: [String] = []) -> Digest {
            let names = (["accept", "via", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-request-id"] + fields).sorted()
            return .passedOn(body: "\(method) \(path) \(bodyBytes) \(names) uid=\(uid)")
        }

        init(_ response: CurlResponse) {
            self.status = response.status
            self.errorCode = response.body.isEmpty ? nil : response.errorCode
            self.fieldNames = Set(response.headers.map { $0.name.lowercased() }).subtracting(["date"]).sorted()
            if response.errorCode != nil || response.body.isEmpty {
                self.body = response.errorCode ?? ""
            } else if let echo = response.json["headers"] as? [[String]] {
                let upstream = UpstreamEcho(response)
                let names = Set(echo.compactMap { $0.first?.lowercased() }).sorted()
                self.body = "\(upstream.method ?? "-") \(upstream.path ?? "-") \(upstream.bodyBytes ?? -1) \(names) uid=\(upstream.values("X-User-Id"))"
            } else if let text = String(validating: response.body.prefix(40), as: UTF8.self) {
                self.body = "\(response.body.count) bytes: \(text)"
            } else {
                self.body = "\(response.body.count) bytes: \(Array(response.body.prefix(8)))"
            }
        }

        var description: String {
            let code = self.errorCode.map { "\"\($0)\"" } ?? "nil"
            let body = self.body.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            return "Digest(status: \(self.status), errorCode: \(code), fieldNames: \(self.fieldNames), body: \"\(body)\")"
        }
    }

    @Test("each request gets its answer: status, error code, the answer's fields, what the upstream saw", arguments: Self.probes)
    func answers(_ probe: Probe) async throws {
        let answer = try await Self.answer(probe)
        #expect(answer.digest == probe.expected)
        if let id = probe.headers.first(where: { $0.0 == "X-Request-ID" })?.1 {
            #expect(answer.requestID == id)
        }
    }

    static func answer(_ probe: Probe) async throws -> (digest: Digest, requestID: String?) {
        let answer = Mutex<CurlResponse?>(nil)
        try await withUpstreamTestServer { upstream in
            try await GatewayHarness.run(configure: { configuration in
                configuration.routes += ProxyFixture.routes(upstream: upstream.baseURL)
            }) { gateway in
                let response = try await gateway.request(probe.method, probe.path, headers: probe.headers, body: probe.body)
                answer.withLock { $0 = response }
            }
        }
        let response = try #require(answer.withLock { $0 })
        return (Digest(response), response.header("x-request-id"))
    }

    @Test(
        "a caller whose uid a field cannot carry unchanged is refused with 403 on a proxied route, and nothing is forwarded",
        arguments: ["alice ", " alice", "alice\t", "a\u{0}b", "a\u{7F}b", "a\r\nX-Admin: 1"]
    )
    func uidNotForwardable(uid: String) async throws {
        try await withUpstreamTestServer { upstream in
            try await GatewayHarness.run(configure: { configuration in
                configuration.routes += ProxyFixture.routes(upstream: upstream.baseURL)
            }) { gateway in
                let refused = try await gateway.get("/api/echo", headers: [("Authorization", "Bearer " + ProxyFixture.token(uid: uid))])
                #expect(refused.status == 403)
                #expect(refused.errorCode == "PERMISSION_DENIED")
                #expect(upstream.requestCount == 0)
                // The same uid is a valid caller where nothing is forwarded.
                let me = try await gateway.get("/v1/me", headers: [("Authorization", "Bearer " + ProxyFixture.token(uid: uid))])
                #expect(me.status == 200)
                #expect(me.json["uid"] as? String == uid)
                let plain = try await gateway.get("/api/echo", headers: [("Authorization", "Bearer " + ProxyFixture.token(uid: "alice"))])
                #expect(UpstreamEcho(plain).values("X-User-Id") == ["alice"])
            }
        }
    }

    @Test("pipelined requests, proxied and built-in, are answered in request order")
    func pipelinedOrder() async throws {
        try await ProxyFixture.run { gateway, _ in
            let requests = [
                "GET /open/echo/1 HTTP/1.1\r\nHost: t\r\n\r\n",
                "POST /open/echo/2 HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhi",
                "GET /open/echo/3 HTTP/1.1\r\nHost: t\r\n\r\n",
                "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n",
                "GET /open/status/404 HTTP/1.1\r\nHost: t\r\n\r\n",
                "GET /open/echo/6 HTTP/1.1\r\nHost: t\r\n\r\n",
            ]
            let outcome = await RawHTTPExchange(heads: Array(repeating: false, count: requests.count), halfClose: false, stallSeconds: 5)
                .run(port: gateway.port, bytes: Array(requests.joined().utf8))
            #expect(outcome.ending == .answered)
            try #require(outcome.responses.count == requests.count)
            let statuses = outcome.responses.map(\.status)
            #expect(statuses == [200, 200, 200, 200, 404, 200])
            let paths = outcome.responses.map { response -> String in
                let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
                return (json?["path"] as? String) ?? String(decoding: response.body.prefix(30), as: UTF8.self)
            }
            #expect(paths[0] == "/base/echo/1")
            #expect(paths[1] == "/base/echo/2")
            #expect(paths[2] == "/base/echo/3")
            #expect(paths[3].contains("ok"))
            #expect(paths[5] == "/base/echo/6")
        }
    }

    @Test("built-in routes are answered pipelined with proxied requests, on the same connection")
    func builtinsPipelined() async throws {
        try await ProxyFixture.run { gateway, _ in
            let token = ProxyFixture.token(uid: "builtin-user")
            let requests = [
                "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n",
                "GET /v1/me HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(token)\r\n\r\n",
                "HEAD /healthz HTTP/1.1\r\nHost: t\r\n\r\n",
                "GET /v1/me HTTP/1.1\r\nHost: t\r\n\r\n",
                "GET /open/echo/5 HTTP/1.1\r\nHost: t\r\n\r\n",
                // A method SwiftNIO's parser does not know: a token like any other (RFC 9110 §9.1), so a 405.
                "BREW /healthz HTTP/1.1\r\nHost: t\r\n\r\n",
            ]
            let outcome = await RawHTTPExchange(heads: [false, false, true, false, false, false], halfClose: false, stallSeconds: 5)
                .run(port: gateway.port, bytes: Array(requests.joined().utf8))
            #expect(outcome.ending == .answered)
            try #require(outcome.responses.count == requests.count)
            #expect(outcome.responses.map(\.status) == [200, 200, 200, 401, 200, 405])
            let me = (try? JSONSerialization.jsonObject(with: Data(outcome.responses[1].body))) as? [String: Any]
            #expect(me?["uid"] as? String == "builtin-user")
            #expect(outcome.responses[2].body.isEmpty)
        }
    }

    @Test("a client that half-closes after its request still gets the answer, then the connection closes")
    func halfClose() async throws {
        try await ProxyFixture.run { gateway, _ in
            let outcome = await RawHTTPExchange(heads: [false, false], halfClose: true, stallSeconds: 5)
                .run(port: gateway.port, bytes: Array("GET /open/echo/1 HTTP/1.1\r\nHost: t\r\n\r\nGET /stalling/echo/2 HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
            #expect(outcome.ending == .answered || outcome.ending == .closed)
            #expect(outcome.responses.map(\.status) == [200, 200])
        }
    }

    @Test(
        "a client that half-closes after a request, with a body or without, still gets the upstream's answer (not a 502)"
    )
    func halfCloseAfterBody() async throws {
        try await ProxyFixture.run { gateway, _ in
            let requests = [
                "POST /open/echo/1 HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello",
                "PUT /open/echo/2 HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
                "GET /open/echo/3 HTTP/1.1\r\nHost: t\r\n\r\n",
            ]
            for request in requests {
                let outcome = await RawHTTPExchange(heads: [false], halfClose: true, stallSeconds: 5).run(port: gateway.port, bytes: Array(request.utf8))
                #expect(outcome.responses.map(\.status) == [200], "\(request): \(String(decoding: outcome.raw, as: UTF8.self))")
            }
        }
    }

    @Test(
        "a Content-Length of 19 or 20 digits (10^18 up to 2^64-1) is a 413 before the upstream is contacted; past 2^64-1, a 400"
    )
    func hugeContentLength() async throws {
        try await ProxyFixture.run { gateway, upstream in
            let lengths = ["1000000000000000000", "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616"]
            for route in ["/small/echo", "/open/echo"] {
                for length in lengths {
                    let request = "POST \(route) HTTP/1.1\r\nHost: t\r\nContent-Length: \(length)\r\n\r\nabc"
                    let outcome = await RawHTTPExchange(heads: [false], halfClose: false, stallSeconds: 5).run(port: gateway.port, bytes: Array(request.utf8))
                    let expected = length.count > 19 && length > "18446744073709551615" ? 400 : 413
                    #expect(outcome.responses.map(\.status) == [expected], "\(route) \(length): \(String(decoding: outcome.raw, as: UTF8.self))")
                    #expect(outcome.responses.first?.field("connection") == "close")
                }
            }
            #expect(upstream.requestCount == 0)
        }
    }

    @Test("a request followed in the same write by bytes that are not HTTP: its answer, then a JSON 400 and the close")
    func requestThenGarbage() async throws {
        try await ProxyFixture.run { gateway, upstream in
            for first in ["GET /open/echo/1 HTTP/1.1\r\nHost: t\r\n\r\n", "POST /open/echo/1 HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nok"] {
                let bytes = Array(first.utf8) + [0, 1] + Array("garbage\r\n\r\n".utf8)
                let outcome = await RawHTTPExchange(heads: [false, false], halfClose: false, stallSeconds: 5).run(port: gateway.port, bytes: bytes)
                #expect(outcome.responses.map(\.status) == [200, 400], "\(String(decoding: outcome.raw, as: UTF8.self))")
                #expect(outcome.responses.last?.errorCode == "MALFORMED_REQUEST")
                #expect(outcome.responses.last?.field("connection") == "close")
            }
            #expect(upstream.requestCount == 2)
        }
    }

    @Test("a method no route takes, known to SwiftNIO or not (a method is any token, RFC 9110 §9.1), is a 405 with Allow; the connection goes on")
    func unknownMethod() async throws {
        try await ProxyFixture.run { gateway, upstream in
            for method in ["FOO", "BREW", "TRACE", "get", "Post"] {
                let outcome = await RawHTTPExchange(heads: [false, false], halfClose: false, stallSeconds: 5).run(
                    port: gateway.port,
                    bytes: Array("\(method) /open/echo HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
                )
                #expect(outcome.responses.map(\.status) == [405, 200], "\(method): \(String(decoding: outcome.raw, as: UTF8.self))")
                #expect(outcome.responses.first?.field("Allow")?.contains("GET") == true, "\(method)")
                #expect(outcome.responses.first?.errorCode == "METHOD_NOT_ALLOWED", "\(method)")
            }
            #expect(upstream.requestCount == 0)
        }
    }

    /// Upstream answers that must not be passed on: with both framings the client and the gateway could read
    /// different ends of the answer; a status outside 100–599 is no status; under `gzip, chunked` the client would
    /// get gzip bytes without a word about them.
    static let invalidUpstreamAnswers = [
        "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "HTTP/1.1 600 Beyond\r\nContent-Length: 2\r\n\r\nok",
        "HTTP/1.1 099 Below\r\nContent-Length: 2\r\n\r\nok",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
    ]

    @Test(
        "an upstream answer the gateway cannot pass on — both Transfer-Encoding and Content-Length (RFC 9112 §6.3), a status outside 100–599 (RFC 9110 §15), a transfer coding besides chunked — is a 502",
        arguments: Self.invalidUpstreamAnswers
    )
    func invalidUpstreamAnswer(answer: String) async throws {
        try await withLocalRawServer(.reply(Array(answer.utf8))) { upstream in
            try await GatewayHarness.run(configure: { configuration in
                configuration.routes.append(
                    RouteConfiguration(path: .prefix("/bad/"), target: .upstream(UpstreamURL("\(upstream.baseURL)/base")!), auth: .none)
                )
            }) { gateway in
                let outcome = await RawHTTPExchange(heads: [false, false], halfClose: false, stallSeconds: 5).run(
                    port: gateway.port, bytes: Array("GET /bad/x HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
                )
                #expect(outcome.responses.map(\.status) == [502, 200], "\(String(decoding: outcome.raw, as: UTF8.self))")
                #expect(outcome.responses.first?.errorCode == "UPSTREAM_ERROR")
            }
        }
    }

    @Test(
        "an unusable answer on a pooled connection is a 502 and the request is not sent again (only a connection closed without a word is retried)",
        arguments: Self.invalidUpstreamAnswers + [
            "HTTP/1.1 200 OK\r\nX-A: a\r\n folded\r\nContent-Length: 2\r\n\r\nok",
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\n",
        ]
    )
    func invalidAnswerNotRetried(answer: String) async throws {
        let good = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        try await withLocalRawServer(.firstThen(first: Array(good.utf8), then: Array(answer.utf8))) { upstream in
            try await GatewayHarness.run(configure: { configuration in
                configuration.routes.append(
                    RouteConfiguration(path: .prefix("/bad/"), target: .upstream(UpstreamURL("\(upstream.baseURL)/base")!), auth: .none)
                )
            }) { gateway in
                // Pipelined on one client connection: the second request goes out on the upstream connection the first pooled.
                let outcome = await RawHTTPExchange(heads: [false, false], halfClose: false, stallSeconds: 5).run(
                    port: gateway.port, bytes: Array("GET /bad/1 HTTP/1.1\r\nHost: t\r\n\r\nGET /bad/2 HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
                )
                #expect(outcome.responses.map(\.status) == [200, 502], "\(String(decoding: outcome.raw, as: UTF8.self))")
                #expect(upstream.readCount == 2)
            }
        }
    }

    @Test("Connection: close: the answer, then the close; bytes after it are not read as a request")
    func connectionClose() async throws {
        try await ProxyFixture.run { gateway, upstream in
            // Two answers expected, so that only the close ends the exchange.
            let outcome = await RawHTTPExchange(heads: [false, false], halfClose: false, stallSeconds: 5)
                .run(port: gateway.port, bytes: Array("GET /open/echo/1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\nGET /open/echo/2 HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
            #expect(outcome.ending == .closed)
            #expect(outcome.responses.map(\.status) == [200], "\(String(decoding: outcome.raw, as: UTF8.self))")
            #expect(upstream.requestCount == 1)
        }
    }

    @Test("a backlog of pipelined requests, more than a connection holds before it stops reading, is read and answered in order")
    func longPipeline() async throws {
        try await ProxyFixture.run { gateway, upstream in
            let count = 60
            let bytes = (0..<count).map { "GET /open/echo/\($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined()
            let outcome = await RawHTTPExchange(heads: Array(repeating: false, count: count), halfClose: false, stallSeconds: 5)
                .run(port: gateway.port, bytes: Array(bytes.utf8))
            #expect(outcome.ending == .answered)
            let paths = outcome.responses.map { response in
                ((try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any])?["path"] as? String
            }
            #expect(paths == (0..<count).map { "/base/echo/\($0)" })
            #expect(upstream.connectionCount == 1)
        }
    }

    @Test("per-user limits and identity on a proxied route: the limit's fields, then 429, never a spoofed uid")
    func limitsAndIdentity() async throws {
        try await withUpstreamTestServer { upstream in
            try await GatewayHarness.run(configure: { configuration in
                configuration.rateLimits += [RateLimit(name: "tight", capacity: 2, period: 3600)]
                configuration.routes += [
                    RouteConfiguration(
                        path: .prefix("/limited/"), target: .upstream(UpstreamURL(upstream.baseURL + "/base")!), auth: .required,
                        rateLimit: RouteRateLimit(name: "tight")
                    )
                ]
            }) { gateway in
                let headers = [("Authorization", "Bearer " + Self.validToken), ("X-User-Id", "mallory")]
                for _ in 0..<2 {
                    let response = try await gateway.get("/limited/echo", headers: headers)
                    #expect(response.status == 200)
                    #expect(response.header("ratelimit-policy") != nil)
                    #expect(UpstreamEcho(response).values("X-User-Id") == ["edge-user"])
                }
                let limited = try await gateway.get("/limited/echo", headers: headers)
                #expect(limited.status == 429)
                #expect(limited.errorCode == "RATE_LIMITED")
                #expect(limited.header("retry-after") != nil)
                #expect(upstream.requestCount == 2)
            }
        }
    }

    @Test("a head that arrives in pieces is answered; one that never completes is cut off at the header timeout")
    func splitAndSlowHeads() async throws {
        try await ProxyFixture.run(configure: { $0.server.headerTimeoutSeconds = 1.5 }) { gateway, upstream in
            let port = gateway.port
            let answer = try await RawSocketClient.onThread {
                let fd = try RawSocketClient.connected(port: port, receiveTimeout: .seconds(5), sendTimeout: .seconds(2))
                defer { close(fd) }
                for piece in ["GET /open/echo/split HT", "TP/1.1\r\nHo", "st: t\r\n", "\r\n"] {
                    _ = Array(piece.utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    Thread.sleep(forTimeInterval: 0.02)
                }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let received = recv(fd, &buffer, buffer.count, 0)
                return String(decoding: buffer.prefix(max(received, 0)), as: UTF8.self)
            }
            #expect(answer.hasPrefix("HTTP/1.1 200 "), "\(answer)")
            #expect(answer.contains(#"\/base\/echo\/split"#))

            // A head that stops halfway: no answer, the connection closes.
            let outcome = await RawHTTPExchange(heads: [false], halfClose: false, stallSeconds: 5)
                .run(port: gateway.port, bytes: Array("GET /open/echo HTTP/1.1\r\nHost: t\r\nX-Half".utf8))
            #expect(outcome.ending == .closed)
            #expect(outcome.responses.isEmpty)
            #expect(upstream.requestCount == 1)
        }
    }

    @Test("many requests at once, each on its own connection: each answer is its own upstream's")
    func manyAtOnce() async throws {
        // The requests to upstreams leave together at the end of a loop's batch (`LoopFlushes`): every one of them
        // must leave, on its own upstream connection, and come back to its own client.
        try await ProxyFixture.run { gateway, _ in
            let count = 48
            let paths = try await withThrowingTaskGroup(of: (Int, Int, String?).self) { group in
                for index in 0..<count {
                    group.addTask {
                        let response = try await gateway.get("/open/echo/\(index)")
                        return (index, response.status, response.json["path"] as? String)
                    }
                }
                var paths: [Int: String] = [:]
                for try await (index, status, path) in group {
                    #expect(status == 200)
                    paths[index] = path
                }
                return paths
            }
            #expect(paths.count == count)
            for index in 0..<count { #expect(paths[index] == "/base/echo/\(index)") }
        }
    }

    @Test("a kept-alive connection with nothing to do closes after the idle timeout")
    func idleTimeout() async throws {
        try await ProxyFixture.run(configure: { $0.server.idleTimeoutSeconds = 0.3 }) { gateway, _ in
            // Two answers awaited for one request: only the idle close ends the exchange.
            let outcome = await RawHTTPExchange(heads: [false, false], halfClose: false, stallSeconds: 5)
                .run(port: gateway.port, bytes: Array("GET /open/echo/1 HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
            #expect(outcome.ending == .closed)
            #expect(outcome.responses.map(\.status) == [200])
        }
    }

    @Test("an upstream's Date is passed on (RFC 9110 §6.6.1); the gateway dates the answers it makes")
    func upstreamDate() async throws {
        try await ProxyFixture.run { gateway, _ in
            let dated = try await gateway.get("/open/dated")
            #expect(dated.status == 200)
            #expect(dated.headers.filter { $0.name.lowercased() == "date" }.map(\.value) == ["Sun, 06 Nov 1994 08:49:37 GMT"])
            let refused = try await gateway.get("/api/dated")
            #expect(refused.status == 401)
            #expect(refused.header("date").map { $0.hasSuffix(" GMT") && !$0.contains("1994") } == true)
        }
    }

    @Test("Max-Forwards on OPTIONS (RFC 9110 §7.6.2): at 0 the gateway answers with Allow, else the upstream gets one less")
    func maxForwards() async throws {
        try await ProxyFixture.run { gateway, upstream in
            let final = try await gateway.request("OPTIONS", "/open/echo", headers: [("Max-Forwards", "0")])
            #expect(final.status == 200)
            #expect(final.header("allow")?.contains("OPTIONS") == true)
            #expect(final.header("allow")?.contains("GET") == true)
            #expect(final.body.isEmpty)
            #expect(final.header("x-request-id") != nil)
            #expect(upstream.requestCount == 0)

            let forwarded = try await gateway.request("OPTIONS", "/open/echo", headers: [("Max-Forwards", "3")])
            #expect(UpstreamEcho(forwarded).values("Max-Forwards") == ["2"])
            let get = try await gateway.request("GET", "/open/echo", headers: [("Max-Forwards", "3")])
            #expect(UpstreamEcho(get).values("Max-Forwards") == ["3"])
            let unparsable = try await gateway.request("OPTIONS", "/open/echo", headers: [("Max-Forwards", "x")])
            #expect(UpstreamEcho(unparsable).values("Max-Forwards") == ["x"])
            #expect(upstream.requestCount == 3)
            // Authentication still comes first: the route's own answer is for callers it lets in.
            let unauthenticated = try await gateway.request("OPTIONS", "/api/echo", headers: [("Max-Forwards", "0")])
            #expect(unauthenticated.status == 401)
        }
    }

    @Test(
        "a pooled connection that fails before any answer: an idempotent request is sent once more, a POST never twice",
        arguments: ["GET", "DELETE", "POST", "PATCH"]
    )
    func retryOnStaleConnection(method: String) async throws {
        try await ProxyFixture.run { gateway, upstream in
            // One client connection, so the second request takes the upstream connection the first one pooled; the
            // upstream resets it on reading the second request (as one closing a kept-alive connection would).
            let requests = "GET /open/echo HTTP/1.1\r\nHost: t\r\n\r\n" + "\(method) /open/reset HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"
            let outcome = await RawHTTPExchange(heads: [false, false], halfClose: false, stallSeconds: 5)
                .run(port: gateway.port, bytes: Array(requests.utf8))
            #expect(outcome.responses.map(\.status) == [200, 502])
            #expect(outcome.responses.last.flatMap { String(decoding: $0.body, as: UTF8.self) }?.contains("UPSTREAM_ERROR") == true)
            let idempotent = method == "GET" || method == "DELETE"
            // The echo, then the reset request: twice (the retry on a new connection is reset too) or once.
            #expect(upstream.requestCount == (idempotent ? 3 : 2))
            #expect(upstream.connectionCount == (idempotent ? 2 : 1))
        }
    }

    /// The `/stalling/` route's 200s in the gateway's metrics, once it has counted any (a cut-off exchange is counted
    /// when both its sides have ended), or nil if none is counted within about ten seconds.
    static func countedStallingAnswers(_ gateway: GatewayHarness) async throws -> Double? {
        let key = "storygate_http_requests_total{route=\"/stalling/\",status=\"200\"}"
        for _ in 0..<1000 {
            if let counted = ObservabilityTests.samples(try await gateway.admin("/metrics").text)[key] { return counted }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    @Test("an answer that stops moving is cut off after the route's timeout")
    func stalledAnswer() async throws {
        // The pattern's table is built on first use (slow in a debug build): not while the route's clock runs.
        _ = BodyPattern.buffer(offset: 0, count: 1)
        try await ProxyFixture.run { gateway, _ in
            // 100,000 of the 200,000 bytes announced, then nothing: `/stalling/` has a 1 s timeout.
            let outcome = await RawHTTPExchange(heads: [false], halfClose: false, stallSeconds: 5)
                .run(port: gateway.port, bytes: Array("GET /stalling/stall/100000 HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
            #expect(outcome.ending != .stalled, "the gateway kept the connection open")
            #expect(outcome.responses.isEmpty)
            #expect(String(decoding: outcome.raw.prefix(13), as: UTF8.self) == "HTTP/1.1 200 ")
            #expect(outcome.raw.count < 200_000)
            // Counted once, though both sides of the exchange end it.
            let counted = try await Self.countedStallingAnswers(gateway)
            #expect(counted == 1)
        }
    }

    @Test("a client that stops reading a long answer is cut off after the route's timeout")
    func clientStopsReading() async throws {
        _ = BodyPattern.buffer(offset: 0, count: 1)
        try await ProxyFixture.run { gateway, _ in
            let total = 200_000_000
            let port = gateway.port
            // The answer's first bytes, then no more reading: the answer stops moving once the buffers between are
            // full (`/stalling/`: 1 s timeout).
            let (fd, start) = try await RawSocketClient.onThread { () throws -> (Int32, String) in
                let fd = try RawSocketClient.connected(port: port, receiveTimeout: .seconds(10), sendTimeout: .seconds(2))
                var size: Int32 = 16 * 1024
                setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
                _ = Array("GET /stalling/stream/\(total) HTTP/1.1\r\nHost: t\r\n\r\n".utf8).withUnsafeBytes {
                    send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                var start = [UInt8](repeating: 0, count: 13)
                let startCount = recv(fd, &start, start.count, Int32(MSG_WAITALL))
                return (fd, String(decoding: start.prefix(max(startCount, 0)), as: UTF8.self))
            }
            defer { close(fd) }
            // The gateway counts the request once it has cut the exchange off: wait for that (bounded), not for a
            // fixed time, so a loaded machine that fills the buffers slowly does not fail the test.
            let counted = try await Self.countedStallingAnswers(gateway)
            #expect(counted == 1, "the exchange was never cut off")
            // Then what was in flight drains, and the connection ends.
            let (received, closed) = await RawSocketClient.onThread { () -> (Int, Bool) in
                var received = start.utf8.count
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let count = recv(fd, &buffer, buffer.count, 0)
                    if count <= 0 {
                        // EOF or a reset: closed; a receive timeout (EAGAIN): still open.
                        return (received, count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
                    }
                    received += count
                }
            }
            #expect(start == "HTTP/1.1 200 ")
            #expect(closed, "the connection stayed open")
            #expect(received < total / 2, "the whole answer kept coming: the connection was not cut off")
        }
    }
}
