import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import HTTPTypes
import HummingbirdCore
import NIOCore
import Testing
import TestSupport

/// Paths, methods, request ids, JSON errors, and bytes no client library would send.
@Suite("HTTP behaviour")
struct HTTPBehaviourTests {
    @Test("healthz and readyz")
    func health() async throws {
        try await GatewayHarness.run { gateway in
            let health = try await gateway.get("/healthz")
            #expect(health.status == 200)
            #expect(health.json["status"] as? String == "ok")
            #expect(health.header("date") != nil)
            let ready = try await gateway.get("/readyz")
            #expect(ready.status == 200)
            #expect(ready.json["status"] as? String == "ready")
        }
    }

    @Test("unknown path 404 and wrong method 405, as JSON errors with requestId and timestamp")
    func notFoundAndMethod() async throws {
        try await GatewayHarness.run { gateway in
            let missing = try await gateway.get("/nope")
            #expect(missing.status == 404)
            #expect(missing.errorCode == "NOT_FOUND")
            #expect(missing.json["requestId"] as? String == missing.header("x-request-id"))
            #expect((missing.json["timestamp"] as? String)?.hasSuffix("Z") == true)

            let wrongMethod = try await gateway.request("POST", "/v1/me", body: Array("{}".utf8))
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.errorCode == "METHOD_NOT_ALLOWED")
            #expect(wrongMethod.header("allow") == "GET, HEAD")
            // the method is checked before credentials
            #expect(try await gateway.request("DELETE", "/healthz").status == 405)
        }
    }

    @Test("HEAD answers like GET without a body")
    func head() async throws {
        try await GatewayHarness.run { gateway in
            let response = try await gateway.request("HEAD", "/healthz")
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
            #expect(response.header("content-length") == "15")
        }
    }

    @Test("X-Request-ID: a well-formed one is kept, others are replaced, every response has one")
    func requestID() async throws {
        try await GatewayHarness.run { gateway in
            let kept = try await gateway.get("/healthz", headers: [("X-Request-ID", "trace-123.abc")])
            #expect(kept.header("x-request-id") == "trace-123.abc")
            let replaced = try await gateway.get("/healthz", headers: [("X-Request-ID", "<bad id>")])
            let generated = try #require(replaced.header("x-request-id"))
            #expect(generated != "<bad id>")
            #expect(generated.count == 32)
            let other = try await gateway.get("/nope")
            #expect(other.header("x-request-id") != generated)
        }
    }

    @Test("every answer that closes the connection spells the field the same: a 413 as a 400")
    func oneSpellingOfConnectionClose() async throws {
        try await GatewayHarness.run(configure: { $0.mode = .dev }) { gateway in
            let oversized = try await RawSocketClient.exchange(
                port: gateway.port,
                text: "POST /functions/v1/story-generation HTTP/1.1\r\nHost: x\r\nX-User-Id: kid\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 300000\r\n\r\n"
            )
            #expect(oversized.hasPrefix("HTTP/1.1 413"), "\(oversized.prefix(60))")
            #expect(oversized.contains("\r\nConnection: close\r\n"), "\(oversized)")
            let malformed = try await RawSocketClient.exchange(port: gateway.port, text: "GET /healthz HTTP/1.1\r\n\r\n")
            #expect(malformed.hasPrefix("HTTP/1.1 400"), "\(malformed.prefix(60))")
            #expect(malformed.contains("\r\nConnection: close\r\n"), "\(malformed)")
        }
    }

    @Test("malformed HTTP is refused and the server keeps serving")
    func malformedBytes() async throws {
        try await GatewayHarness.run(configure: { $0.mode = .dev }) { gateway in
            let garbage: [[UInt8]] = [
                Array("\u{0}\u{1}\u{2}GARBAGE\r\n\r\n".utf8),
                Array("GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n".utf8),
                Array("GET /healthz HTTP/9.9\r\n\r\n".utf8),
                Array("GET /v1/me HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n".utf8),
            ]
            for bytes in garbage {
                let answer = try await RawSocketClient.exchange(port: gateway.port, bytes: bytes, timeoutSeconds: 5)
                #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(60))")
                #expect(!answer.contains(" 500 "))
            }
            // A valid head is answered by a handler that reads no body; the broken chunked body after it is never
            // read: the answer closes the connection.
            let chunked = try await RawSocketClient.exchange(
                port: gateway.port, text: "GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
            )
            #expect(chunked.hasPrefix("HTTP/1.1 200"), "\(chunked.prefix(60))")
            #expect(chunked.lowercased().contains("\r\nconnection: close\r\n"))
            #expect(!chunked.contains(" 500 "))
            // One that reads its body: the broken framing is a 400, and the connection closes.
            let broken = try await RawSocketClient.exchange(
                port: gateway.port,
                text: "POST /functions/v1/story-generation HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nX-User-Id: u\r\n"
                    + "Content-Type: application/json\r\n\r\nzz\r\n"
            )
            #expect(broken.hasPrefix("HTTP/1.1 400"), "\(broken.prefix(60))")
            #expect(broken.lowercased().contains("\r\nconnection: close\r\n"))
            #expect(try await gateway.get("/healthz").status == 200)
        }
    }

    /// An answer whose length is not known beforehand (a streamed body).
    static let streamedRoute = Route(name: "streamed-test", path: .exact("/test/streamed"), methods: [.get], auth: .none) { _, _ in
        Response(status: .ok, body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "one,"))
            try await writer.write(ByteBuffer(string: "two"))
            try await writer.finish(nil)
        })
    }

    @Test("an HTTP/1.0 client gets an answer of unknown length unchunked, ended by the close; HTTP/1.1 gets it chunked")
    func http10UnknownLength() async throws {
        try await GatewayHarness.run(extraRoutes: [Self.streamedRoute]) { gateway in
            let old = try await RawSocketClient.exchange(
                port: gateway.port, text: "GET /test/streamed HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", timeoutSeconds: 5
            )
            #expect(old.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(old)")
            #expect(!old.lowercased().contains("transfer-encoding"), "\(old)")
            #expect(old.lowercased().contains("\r\nconnection: close\r\n"), "\(old)")
            #expect(old.hasSuffix("\r\n\r\none,two"), "\(old)")
            let current = try await RawSocketClient.exchange(
                port: gateway.port, text: "GET /test/streamed HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeoutSeconds: 5
            )
            #expect(current.lowercased().contains("\r\ntransfer-encoding: chunked\r\n"), "\(current)")
            #expect(current.hasSuffix("\r\n\r\n4\r\none,\r\n3\r\ntwo\r\n0\r\n\r\n"), "\(current)")
        }
    }

    @Test("an absurd Authorization header is refused without parsing")
    func hugeAuthorization() async throws {
        try await GatewayHarness.run { gateway in
            let huge = "Bearer " + String(repeating: "A", count: 20_000) + "." + String(repeating: "B", count: 10) + ".C"
            let response = try await gateway.get("/v1/me", headers: [("Authorization", huge)])
            #expect(response.status == 401)
            #expect(response.errorCode == "UNAUTHENTICATED")
            #expect(!response.text.contains("AAAA"))
        }
    }

    @Test("any Authorization value gives a JSON 4xx, never a 5xx")
    func authorizationFuzz() async throws {
        try await GatewayHarness.run { gateway in
            var generator = SystemRandomNumberGenerator()
            let alphabet = Array("ABCabc012-_.+/=~ ,;\"'\\{}[]:")
            for round in 0..<200 {
                let length = Int.random(in: 0..<120, using: &generator)
                let value = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
                let header = round % 2 == 0 ? "Bearer " + value : value
                let response = try await gateway.get("/v1/me", headers: [("Authorization", header)])
                #expect((400..<500).contains(response.status), "\(header) → \(response.status)")
                #expect(response.errorCode != nil, "\(header)")
            }
        }
    }
}
