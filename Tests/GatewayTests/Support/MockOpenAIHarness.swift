import Logging
import MockOpenAI
import ServiceLifecycle
import StoryFunctions

/// A local fake OpenAI (`MockOpenAIServer` answering from the offline provider) for the duration of `body`.
func withMockOpenAI(
    _ configuration: MockOpenAIConfiguration = MockOpenAIConfiguration(), _ body: @Sendable (MockOpenAIServer, String) async throws -> Void
) async throws {
    let (ports, continuation) = AsyncStream<Int>.makeStream()
    let server = MockOpenAIServer(
        configuration: configuration, provider: OfflineProvider(), logger: GatewayHarness.logger,
        onServerRunning: { continuation.yield($0) }
    )
    let group = ServiceGroup(services: [server], logger: GatewayHarness.logger)
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw GatewayHarness.HarnessError(description: "mock OpenAI did not start") }
        do {
            try await body(server, "http://127.0.0.1:\(port)/v1")
        } catch {
            await group.triggerGracefulShutdown()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
    }
}
