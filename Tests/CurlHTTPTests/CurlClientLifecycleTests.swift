import CurlHTTP
import Testing
import TestSupport

@Suite("CurlClient lifecycle and cancellation", .timeLimit(.minutes(1)))
struct CurlClientLifecycleTests {
    @Test func cancellingTheTaskRemovesTheTransferAndClosesTheConnection() async throws {
        let (arrivals, arrived) = AsyncStream<Void>.makeStream()
        try await withLocalHTTPServer({ _ in
            arrived.yield()
            try await Task.sleep(for: .seconds(30))
            return .text("too late")
        }) { server in
            try await withRunningClient { client in
                let call = Task { try await client.get(server.baseURL + "/hang") }
                // Cancel only once the request has reached the server, so the transfer is mid-flight.
                await arrivals.first { _ in true }
                call.cancel()
                await expectCurlError(.cancelled) { _ = try await call.value }
                await server.waitForClosedConnections(atLeast: 1)
                #expect(server.closedConnectionCount == 1)

                // The client is still fine for the next call.
                await #expect(throws: CurlError.timeout) {
                    _ = try await client.execute(CurlRequest(url: server.baseURL + "/hang", timeout: .milliseconds(100)))
                }
            }
        }
    }

    @Test func aCallFromAnAlreadyCancelledTaskFailsAtOnce() async throws {
        try await withLocalHTTPServer({ _ in .text("ok") }) { server in
            try await withRunningClient { client in
                let call = Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try await client.get(server.baseURL + "/")
                }
                await expectCurlError(.cancelled) { _ = try await call.value }
                #expect(server.requestCount == 0)
            }
        }
    }

    @Test func shutdownFailsPendingCallsAndRunReturns() async throws {
        let (arrivals, arrived) = AsyncStream<Void>.makeStream()
        try await withLocalHTTPServer({ _ in
            arrived.yield()
            try await Task.sleep(for: .seconds(30))
            return .text("too late")
        }) { server in
            let client = CurlClient(logger: .curlTests)
            let run = Task { try await client.run() }
            let calls = (0..<5).map { _ in Task { try await client.get(server.baseURL + "/hang") } }
            // Shut down once all five are in flight.
            var iterator = arrivals.makeAsyncIterator()
            for _ in 0..<5 {
                await iterator.next()
            }
            run.cancel()
            try await run.value
            for call in calls {
                await expectCurlError(.shutdown) { _ = try await call.value }
            }
            await expectCurlError(.shutdown) { _ = try await client.get(server.baseURL + "/late") }
            await server.waitForClosedConnections(atLeast: 5)
        }
    }

    @Test func callsMadeBeforeRunCompleteOnceItRuns() async throws {
        try await withLocalHTTPServer({ request in .text(request.path) }) { server in
            let client = CurlClient(logger: .curlTests)
            let calls = (0..<3).map { index in Task { try await client.get(server.baseURL + "/\(index)") } }
            // Nothing is sent before run().
            #expect(server.requestCount == 0)
            let run = Task { try await client.run() }
            for (index, call) in calls.enumerated() {
                let response = try await call.value
                #expect(response.bodyText == "/\(index)")
            }
            run.cancel()
            try await run.value
        }
    }

    @Test func cancellingAQueuedCallBeforeRunResumesIt() async throws {
        let client = CurlClient(logger: .curlTests)
        let call = Task { try await client.get("http://127.0.0.1:9/") }
        call.cancel()
        await expectCurlError(.cancelled) { _ = try await call.value }
    }

    @Test func runTwiceReturnsAtOnceAndStoppedClientsRefuseCalls() async throws {
        let client = CurlClient(logger: .curlTests)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await client.run() }
            group.addTask { try await client.run() }
            // Whichever run() came second returns at once; the first runs until cancelled.
            try await group.next()
            group.cancelAll()
            try await group.waitForAll()
        }
        try await client.run()
        await expectCurlError(.shutdown) { _ = try await client.get("http://127.0.0.1:9/") }
    }
}
