public import Logging

/// A local server a test starts and must stop, whatever happens to the test.
public protocol LocalTestServer: Sendable {
    func shutdown() async
}

/// Runs `body` with `server`, then shuts the server down, whether `body` returns or throws.
@discardableResult
public func withShutdown<Server: LocalTestServer, Result: Sendable>(
    _ server: Server, _ body: (Server) async throws -> Result
) async throws -> Result {
    do {
        let result = try await body(server)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}

/// Runs `body` with a fresh ``LocalHTTPServer`` answering with `handler`, and shuts the server down
/// afterwards, whether `body` returns or throws.
@discardableResult
public func withLocalHTTPServer<Result: Sendable>(
    logger: Logger = LocalHTTPServer.quietLogger,
    _ handler: @escaping LocalHTTPServer.Handler,
    _ body: (LocalHTTPServer) async throws -> Result
) async throws -> Result {
    try await withShutdown(try await LocalHTTPServer.start(logger: logger, handler), body)
}

/// Runs `body` with a fresh ``LocalRawServer`` behaving as `behavior`, and shuts it down afterwards.
@discardableResult
public func withLocalRawServer<Result: Sendable>(
    _ behavior: LocalRawServer.Behavior,
    _ body: (LocalRawServer) async throws -> Result
) async throws -> Result {
    try await withShutdown(try await LocalRawServer.start(behavior), body)
}
