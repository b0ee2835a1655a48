import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import HTTPTypes
import HummingbirdCore
import NIOCore
import Synchronization
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif
#if canImport(CNIOLinux)
// Socket constants are defined by whichever C module included them first: NIO's, once any file of the target imports NIO.
import CNIOLinux
#endif

/// The listener's limits: header size and count (431), declared bodies over a route's limit (413, unread),
/// unreadable requests (JSON 400), and slow clients cut off.
@Suite("Server limits")
struct ServerLimitsTests {
    @Test("a header section over the size limit is a JSON 431 and the connection closes")
    func headerBytes() async throws {
        try await GatewayHarness.run(configure: { $0.server.maxHeaderBytes = 8 * 1024 }) { gateway in
            let request = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 9 * 1024) + "\r\n\r\n"
            let answer = try await RawSocketClient.exchange(port: gateway.port, text: request)
            #expect(answer.hasPrefix("HTTP/1.1 431"), "\(answer.prefix(60))")
            #expect(answer.contains("\"code\":\"HEADERS_TOO_LARGE\""))
            #expect(answer.lowercased().contains("connection: close"))
            #expect(try await gateway.get("/healthz").status == 200)
        }
    }

    @Test("more header fields than the limit is a JSON 431")
    func headerCount() async throws {
        try await GatewayHarness.run(configure: { $0.server.maxHeaderCount = 50 }) { gateway in
            let fields = (0..<60).map { "X-Field-\($0): 1\r\n" }.joined()
            let answer = try await RawSocketClient.exchange(port: gateway.port, text: "GET /healthz HTTP/1.1\r\nHost: x\r\n\(fields)\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 431"), "\(answer.prefix(60))")
            let fewer = (0..<40).map { ("X-Field-\($0)", "1") }
            #expect(try await gateway.get("/healthz", headers: fewer).status == 200)
        }
    }

    @Test("unreadable bytes are a JSON 400 MALFORMED_REQUEST")
    func malformed() async throws {
        try await GatewayHarness.run { gateway in
            let answer = try await RawSocketClient.exchange(port: gateway.port, text: "\u{1}\u{2}NOT HTTP\r\n\r\n")
            #expect(answer.hasPrefix("HTTP/1.1 400"))
            let body = try #require(answer.components(separatedBy: "\r\n\r\n").last)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            #expect((json["error"] as? [String: Any])?["code"] as? String == "MALFORMED_REQUEST")
        }
    }

    @Test("a head refused for its framing says why, in a fixed sentence", arguments: [
        ("GET /healthz HTTP/1.1\r\n\r\n", "needs a Host header"),
        ("POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", "send only one of them"),
        ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "does not speak HTTP/2"),
        ("\u{16}\u{3}\u{1}\u{0}\u{5}", "TLS sent to a plain-HTTP port"),
    ])
    func malformedSaysWhy(_ request: String, _ expected: String) async throws {
        try await GatewayHarness.run { gateway in
            let answer = try await RawSocketClient.exchange(port: gateway.port, text: request)
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(60))")
            let body = try #require(answer.components(separatedBy: "\r\n\r\n").last)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
            let error = try #require(json["error"] as? [String: Any])
            #expect(error["code"] as? String == "MALFORMED_REQUEST")
            #expect((error["message"] as? String)?.contains(expected) == true, "\(body)")
        }
    }

    @Test("two Authorization fields are the documented 400 INVALID_ARGUMENT, and the connection closes")
    func twoAuthorizationFields() async throws {
        try await GatewayHarness.run { gateway in
            let answer = try await RawSocketClient.exchange(
                port: gateway.port, text: "GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n"
            )
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer.prefix(60))")
            #expect(answer.contains("\"code\":\"INVALID_ARGUMENT\""), "\(answer)")
            #expect(answer.lowercased().contains("connection: close"))
        }
    }

    @Test("a declared body over the route's limit is a 413 before the handler runs, and the connection closes unread")
    func declaredBodyTooLarge() async throws {
        let handlerRuns = Mutex(0)
        let route = Route(name: "upload", path: .exact("/test/upload"), methods: [.post], auth: .none, maxBodyBytes: 1024) { request, _ in
            handlerRuns.withLock { $0 += 1 }
            var count = 0
            for try await buffer in request.body { count += buffer.readableBytes }
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "\(count)")))
        }
        try await GatewayHarness.run(extraRoutes: [route]) { gateway in
            // 100 MB declared, none sent: the answer comes at once and the connection is closed, not drained.
            let answer = try await RawSocketClient.exchange(
                port: gateway.port, text: "POST /test/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n"
            )
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer.prefix(60))")
            #expect(answer.contains("\"code\":\"PAYLOAD_TOO_LARGE\""))
            let small = try await gateway.request("POST", "/test/upload", body: Array(repeating: 1, count: 1000))
            #expect(small.status == 200)
            #expect(small.text == "1000")
            #expect(handlerRuns.withLock { $0 } == 1)
        }
    }

    @Test("a client dribbling its request head is cut off at the header timeout; a prompt one is answered")
    func slowClient() async throws {
        try await GatewayHarness.run(configure: { $0.server.headerTimeoutSeconds = 0.3 }) { gateway in
            let cutOff = try await RawSocketClient.dribble(
                port: gateway.port, prefix: "GET /healthz HTTP/1.1\r\nHost: x\r\n", dribble: "X-Slow: 1\r\n",
                interval: .milliseconds(20), maxSeconds: 20
            )
            #expect(cutOff)
            #expect(try await gateway.get("/healthz").status == 200)
        }
    }
}

/// `Expect: 100-continue` (RFC 9110 §10.1.1): an interim 100 once the request passes the checks that need no body,
/// a final refusal instead (and the connection closed, since the body will not come).
@Suite("Expect: 100-continue")
struct ExpectContinueTests {
    static let echo = Route(name: "echo", path: .exact("/test/echo"), methods: [.post], auth: .required) { request, _ in
        var count = 0
        for try await buffer in request.body { count += buffer.readableBytes }
        return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "\(count)")))
    }

    static func dev(_ configuration: inout GatewayConfiguration) {
        configuration.mode = .dev
        configuration.firebaseProjectID = nil
    }

    @Test("an accepted request gets 100 Continue before its body is sent, then the final answer")
    func continues() async throws {
        try await GatewayHarness.run(configure: Self.dev, extraRoutes: [Self.echo]) { gateway in
            let connection = try RawConnection(port: gateway.port)
            connection.send("POST /test/echo HTTP/1.1\r\nHost: x\r\nX-User-Id: kid\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            let interim = await connection.read(for: 5) { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
            #expect(String(decoding: interim.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 100 Continue\r\n"))
            connection.send("hello")
            let final = await connection.read(for: 5) { String(decoding: $0, as: UTF8.self).hasSuffix("\r\n\r\n5") }
            let text = String(decoding: final.bytes, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200"), "\(text.prefix(80))")
            #expect(text.hasSuffix("\r\n\r\n5"))
        }
    }

    @Test("a refused request gets its final answer instead of 100, and the connection closes", arguments: [
        ("POST /test/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n", "401"),
        // A function reads at most 256 KiB: a larger declared body is refused before 100, not after it.
        ("POST /functions/v1/story-generation HTTP/1.1\r\nHost: x\r\nX-User-Id: kid\r\nContent-Length: 300000\r\nExpect: 100-continue\r\n\r\n", "413"),
    ])
    func refused(request: String, status: String) async throws {
        try await GatewayHarness.run(configure: Self.dev, extraRoutes: [Self.echo]) { gateway in
            let connection = try RawConnection(port: gateway.port)
            connection.send(request)
            let answer = await connection.read(for: 5)
            let text = String(decoding: answer.bytes, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 \(status)"), "\(text.prefix(80))")
            #expect(!text.contains("100 Continue"))
            #expect(answer.closed)
        }
    }

    @Test("a chunked body past a function's limit is a 413 at once, not after the last chunk, and the connection closes")
    func chunkedPastTheLimit() async throws {
        try await GatewayHarness.run(configure: Self.dev) { gateway in
            let connection = try RawConnection(port: gateway.port)
            connection.send(
                "POST /functions/v1/story-generation HTTP/1.1\r\nHost: x\r\nX-User-Id: kid\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n"
            )
            // 300 KiB in 16 KiB chunks, and no last chunk: the body never ends.
            let chunk = "4000\r\n" + String(repeating: "x", count: 0x4000) + "\r\n"
            for _ in 0..<19 { connection.send(chunk) }
            let answer = await connection.read(for: 5) { String(decoding: $0, as: UTF8.self).contains("}") }
            let text = String(decoding: answer.bytes, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 413"), "\(text.prefix(80))")
            #expect(text.lowercased().contains("connection: close"))
        }
    }

    @Test("max_connections: a connection past the limit waits in the backlog, and is served once another closes")
    func maxConnections() async throws {
        // Not waiting for readiness: the harness would poll /readyz over a kept-alive connection of its own.
        try await GatewayHarness.run(configure: { $0.server.maxConnections = 2 }, waitUntilReady: false) { gateway in
            let port = gateway.port
            let outcome = try await RawSocketClient.onThread { () throws -> (first: String, waiting: Int, third: String) in
                let request = Array("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
                func ask(_ fd: Int32) -> String {
                    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    let count = recv(fd, &buffer, buffer.count, 0)
                    return String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self)
                }
                // Two kept-alive connections, each answered once: the limit is reached.
                let first = try RawSocketClient.connected(port: port, receiveTimeout: .seconds(5), sendTimeout: .seconds(2))
                let second = try RawSocketClient.connected(port: port, receiveTimeout: .seconds(5), sendTimeout: .seconds(2))
                defer { close(second) }
                let firstAnswer = ask(first)
                _ = ask(second)
                // A third connects (the kernel's backlog) but is not accepted: its request waits, unanswered.
                let third = try RawSocketClient.connected(port: port, receiveTimeout: .seconds(5), sendTimeout: .seconds(2))
                defer { close(third) }
                _ = request.withUnsafeBytes { send(third, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                Thread.sleep(forTimeInterval: 0.5)
                var probe = [UInt8](repeating: 0, count: 16)
                let waiting = recv(third, &probe, probe.count, Int32(MSG_DONTWAIT))
                // One closes: the third is accepted and answered.
                close(first)
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = recv(third, &buffer, buffer.count, 0)
                return (firstAnswer, waiting, String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self))
            }
            #expect(outcome.first.hasPrefix("HTTP/1.1 200 "))
            #expect(outcome.waiting < 0, "answered past the limit")
            #expect(outcome.third.hasPrefix("HTTP/1.1 200 "), "\(outcome.third)")
        }
    }
}
