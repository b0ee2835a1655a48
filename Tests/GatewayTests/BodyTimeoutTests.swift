import CurlHTTP
import Foundation
import Testing
import TestSupport

@testable import Gateway
@testable import GatewayConfig

/// A client that stops sending its request body while the gateway waits for it (nginx's `client_body_timeout`):
/// a JSON 408 `REQUEST_TIMEOUT` that says `Connection: close`, then the close.
@Suite("Body timeout")
struct BodyTimeoutTests {
    static func configure(_ configuration: inout GatewayConfiguration) {
        configuration.mode = .dev
        configuration.server.bodyTimeoutSeconds = 0.3
    }

    /// Sends `request` (a head declaring more body than follows it) and expects a 408 and the close.
    static func expectTimedOut(_ request: String, port: Int) async throws {
        let connection = try RawConnection(port: port)
        connection.send(request)
        let answer = await connection.read(for: 10)
        let text = String(decoding: answer.bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "\(text.prefix(80))")
        #expect(text.lowercased().contains("\r\nconnection: close\r\n"), "\(text)")
        let body = text.range(of: "\r\n\r\n").map { Data(text[$0.upperBound...].utf8) } ?? Data()
        let json = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect((json?["error"] as? [String: Any])?["code"] as? String == "REQUEST_TIMEOUT", "\(text)")
        #expect(answer.closed)
    }

    /// POSTs `pieces` times `hello` to `path`, one every 100 ms, and returns the answer.
    static func trickle(_ path: String, pieces: Int, port: Int) async throws -> String {
        let connection = try RawConnection(port: port)
        connection.send("POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Length: \(pieces * 5)\r\nConnection: close\r\n\r\n")
        // On a thread of its own: the pieces' pace must not depend on the cooperative pool, which other tests running
        // meanwhile may keep busy for longer than the body timeout.
        await RawSocketClient.onThread {
            for _ in 0..<pieces {
                Thread.sleep(forTimeInterval: 0.1)
                connection.send("hello")
            }
        }
        let answer = await connection.read(for: 10) { String(decoding: $0, as: UTF8.self).contains("}") }
        return String(decoding: answer.bytes, as: UTF8.self)
    }

    @Test("a function and a proxied route whose body stops coming answer 408 and close")
    func stalledBody() async throws {
        try await ProxyFixture.run(configure: Self.configure) { gateway, upstream in
            try await Self.expectTimedOut(
                "POST /functions/v1/extract-scenes HTTP/1.1\r\nHost: x\r\nX-User-Id: kid\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100\r\n\r\n{\"story\":", port: gateway.port
            )
            try await Self.expectTimedOut("POST /open/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nhello", port: gateway.port)
            try await Self.expectTimedOut(
                "PUT /open/echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", port: gateway.port
            )
            // The gateway still answers.
            #expect(try await gateway.get("/healthz").status == 200)
            _ = upstream
        }
    }

    @Test("a request answered without its body has its connection closed when the body stops coming")
    func answeredThenStalled() async throws {
        try await ProxyFixture.run(configure: Self.configure) { gateway, _ in
            let connection = try RawConnection(port: gateway.port)
            // `/healthz` takes no POST: a 405 at once, then nothing more is read once the body stalls.
            connection.send("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nhello")
            let answer = await connection.read(for: 10)
            let text = String(decoding: answer.bytes, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 405 "), "\(text.prefix(80))")
            #expect(!text.contains("HTTP/1.1 408"))
            #expect(answer.closed)
        }
    }

    @Test("a body that keeps coming, more slowly in all than the timeout, is read whole")
    func slowButSteady() async throws {
        try await ProxyFixture.run(configure: { configuration in
            Self.configure(&configuration)
            configuration.server.bodyTimeoutSeconds = 2
        }) { gateway, upstream in
            let text = try await Self.trickle("/open/echo", pieces: 25, port: gateway.port)
            #expect(text.hasPrefix("HTTP/1.1 200 "), "\(text.prefix(80))")
            #expect(text.contains("\"bodyBytes\":125"), "\(text)")
            #expect(upstream.requestCount == 1)
        }
    }
}

/// A proxied route's `timeout_seconds` with a request body (Envoy's route timeout): it counts from the request sent
/// whole, and while the body streams up, on each part the upstream is slow to take; waiting for the client's body is
/// not the upstream's delay.
@Suite("Route timeout with a body")
struct RouteTimeoutWithBodyTests {
    @Test("a body streaming up for longer than the route's timeout is forwarded whole")
    func longUpload() async throws {
        // `/slow/` gets a 1 s timeout here; the body takes about 2.5 s to arrive. (The upstream runs in this test
        // process: the timeout leaves it time to take each part while other tests keep the machine busy.)
        try await ProxyFixture.run(configure: { configuration in
            for index in configuration.routes.indices where configuration.routes[index].path == .prefix("/slow/") {
                configuration.routes[index].timeoutSeconds = 1
            }
        }) { gateway, upstream in
            let text = try await BodyTimeoutTests.trickle("/slow/echo", pieces: 25, port: gateway.port)
            #expect(text.hasPrefix("HTTP/1.1 200 "), "\(text.prefix(80))")
            #expect(text.contains("\"bodyBytes\":125"), "\(text)")
            #expect(upstream.requestCount == 1)
        }
    }

    @Test("an upstream that stops taking the body is a 504 at the route's timeout")
    func upstreamStopsReading() async throws {
        try await withLocalRawServer(.neverRead) { upstream in
            try await GatewayHarness.run(configure: { configuration in
                configuration.routes.append(
                    RouteConfiguration(
                        path: .prefix("/deaf/"), target: .upstream(UpstreamURL("http://127.0.0.1:\(upstream.port)")!), auth: .none,
                        timeoutSeconds: 0.3, maxBodyBytes: 256 * 1024 * 1024
                    )
                )
            }) { gateway in
                // More than the sockets between the gateway and the upstream hold, sent from a thread of its own (the
                // sends block once the gateway stops reading).
                let connection = try RawConnection(port: gateway.port)
                let size = 64 * 1024 * 1024
                connection.send("POST /deaf/x HTTP/1.1\r\nHost: x\r\nContent-Length: \(size)\r\n\r\n")
                let sender = Thread {
                    let chunk = String(repeating: "a", count: 1024 * 1024)
                    for _ in 0..<64 { connection.send(chunk) }
                }
                sender.start()
                let answer = await connection.read(for: 20) { String(decoding: $0, as: UTF8.self).contains("}") }
                let text = String(decoding: answer.bytes, as: UTF8.self)
                #expect(text.hasPrefix("HTTP/1.1 504 "), "\(text.prefix(80))")
                #expect(text.contains("\"code\":\"UPSTREAM_TIMEOUT\""), "\(text)")
            }
        }
    }
}
