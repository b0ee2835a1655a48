import CurlHTTP
import Foundation
import Gateway
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
}
