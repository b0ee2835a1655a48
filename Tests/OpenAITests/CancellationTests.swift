import OpenAI
import Testing
import TestSupport

/// Cancelling the calling task aborts the transfer (the server sees its connection close) and nothing is retried.
@Suite("OpenAIClient cancellation")
struct CancellationTests {
    @Test("cancelled mid-transfer: the connection closes, AIError.cancelled, no retry")
    func cancelMidTransfer() async throws {
        let (received, receivedContinuation) = AsyncStream<Void>.makeStream()
        try await withFakeOpenAI({ _, _ in
            receivedContinuation.yield()
            try await Task.sleep(for: .seconds(60))
            return Fixtures.images()
        }) { client, fake in
            let call = Task { () async throws(AIError) -> ImageResult in
                try await client.generateImage(FaultTests.image)
            }
            var iterator = received.makeAsyncIterator()
            _ = await iterator.next()
            call.cancel()
            let result = await call.result
            guard case .failure(let error) = result else {
                Issue.record("expected a failure, got \(result)")
                return
            }
            #expect((error as? AIError)?.isCancellation == true, "got \(error)")
            await fake.server.waitForClosedConnections(atLeast: 1)
            #expect(fake.attempts == 1)
        }
    }

    @Test("cancelled while waiting to retry: AIError.cancelled at once, no second attempt")
    func cancelDuringBackoff() async throws {
        let (received, receivedContinuation) = AsyncStream<Void>.makeStream()
        var settings = ClientSettings()
        settings.deadline = .seconds(120)
        try await withFakeOpenAI(settings: settings, { _, _ in
            receivedContinuation.yield()
            return Fixtures.error(status: 429, code: "rate_limit_exceeded", headers: [("Retry-After", "60")])
        }) { client, fake in
            let call = Task { () async throws(AIError) -> ModerationResult in
                try await client.moderate(FaultTests.moderation)
            }
            var iterator = received.makeAsyncIterator()
            _ = await iterator.next()
            call.cancel()
            let result = await call.result
            guard case .failure(let error) = result else {
                Issue.record("expected a failure, got \(result)")
                return
            }
            #expect((error as? AIError)?.isCancellation == true, "got \(error)")
            #expect(fake.attempts == 1)
        }
    }

    @Test("a task cancelled before the call: nothing is sent")
    func cancelledBefore() async throws {
        try await withFakeOpenAI(sequence(FaultTests.okModeration)) { client, fake in
            let call = Task { () async throws(AIError) -> ModerationResult in
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.moderate(FaultTests.moderation)
            }
            let result = await call.result
            guard case .failure(let error) = result else {
                Issue.record("expected a failure")
                return
            }
            #expect((error as? AIError)?.isCancellation == true, "got \(error)")
            #expect(fake.attempts == 0)
        }
    }
}
