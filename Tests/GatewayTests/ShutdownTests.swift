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

/// Graceful shutdown: readiness turns 503 when draining starts, requests in flight finish, new connections are refused.
@Suite("Graceful shutdown")
struct ShutdownTests {
    @Test("/readyz answers 503 UNAVAILABLE once draining starts; /healthz stays 200")
    func readinessWhileDraining() async throws {
        try await GatewayHarness.run { gateway in
            #expect(try await gateway.get("/readyz").status == 200)
            gateway.application.drain.startDraining()
            let ready = try await gateway.get("/readyz")
            #expect(ready.status == 503)
            #expect(ready.errorCode == "UNAVAILABLE")
            let message = (ready.json["error"] as? [String: Any])?["message"] as? String
            #expect(message?.contains("shutting down") == true, "\(message ?? "")")
            #expect(try await gateway.get("/healthz").status == 200)
        }
    }

    @Test("a request in flight when shutdown starts completes; new connections are refused")
    func inFlightCompletes() async throws {
        let (entered, enteredContinuation) = AsyncStream<Void>.makeStream()
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        let slow = Route(name: "slow", path: .exact("/test/slow"), methods: [.get], auth: .none) { _, _ in
            enteredContinuation.yield()
            var iterator = release.makeAsyncIterator()
            await iterator.next()
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(string: "finished")))
        }
        try await GatewayHarness.run(extraRoutes: [slow]) { gateway in
            let inFlight = Task { try await gateway.get("/test/slow") }
            var enteredIterator = entered.makeAsyncIterator()
            await enteredIterator.next()

            await gateway.triggerShutdown()
            // Shutdown reaches the server asynchronously: poll until the listener refuses connections (bounded).
            var refused = false
            for _ in 0..<500 where !refused {
                refused = !RawSocketClient.canConnect(port: gateway.port)
                if !refused { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(refused)
            #expect(gateway.application.drain.isDraining)

            releaseContinuation.yield()
            let response = try await inFlight.value
            #expect(response.status == 200)
            #expect(response.text == "finished")
        }
    }

    @Test(
        "a proxied request in flight when shutdown starts completes; an idle kept-alive connection closes"
    )
    func proxiedInFlightCompletes() async throws {
        try await ProxyFixture.run { gateway, upstream in
            // An idle connection that has been answered once.
            let idle = Task {
                await RawHTTPExchange(heads: [false, false], halfClose: false, stallSeconds: 10)
                    .run(port: gateway.port, bytes: Array("GET /open/echo/idle HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
            }
            // On a raw socket of its own (the harness's curl client is shut down as soon as the gateway has stopped,
            // which can be before curl has finished reading the last answer).
            let inFlight = Task {
                await RawHTTPExchange(heads: [false], halfClose: false, stallSeconds: 10)
                    .run(port: gateway.port, bytes: Array("GET /open/delay/600 HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
            }
            for _ in 0..<500 where upstream.requestCount < 2 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(upstream.requestCount == 2)

            await gateway.triggerShutdown()
            let outcome = await inFlight.value
            #expect(outcome.responses.map(\.status) == [200])
            #expect(outcome.responses.first.map { String(decoding: $0.body, as: UTF8.self) } == "delayed")
            let idleOutcome = await idle.value
            #expect(idleOutcome.responses.map(\.status) == [200])
            #expect(idleOutcome.ending == .closed)
        }
    }
}
