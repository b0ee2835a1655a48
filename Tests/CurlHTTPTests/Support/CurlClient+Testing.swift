import CurlHTTP
import Testing
import Logging

extension Logger {
    /// A logger for clients under test: quiet unless something is wrong.
    static var curlTests: Logger {
        var logger = Logger(label: "CurlHTTPTests")
        logger.logLevel = .warning
        return logger
    }
}

/// Runs `body` with a running ``CurlClient``, then cancels `run()` and waits for it to return.
@discardableResult
func withRunningClient<Result: Sendable>(
    _ configuration: CurlClient.Configuration = .init(),
    _ body: (CurlClient) async throws -> Result
) async throws -> Result {
    let client = CurlClient(configuration: configuration, logger: .curlTests)
    let runTask = Task { try await client.run() }
    do {
        let result = try await body(client)
        runTask.cancel()
        try await runTask.value
        return result
    } catch {
        runTask.cancel()
        try? await runTask.value
        throw error
    }
}

extension CurlClient {
    /// `execute(CurlRequest(url:))`.
    func get(_ url: String) async throws -> CurlResponse {
        try await self.execute(CurlRequest(url: url))
    }
}

extension CurlResponse {
    /// The body decoded as UTF-8.
    var bodyText: String { String(decoding: self.body, as: UTF8.self) }
}

/// Asserts that `operation` throws the ``CurlError`` `expected` (compared by kind) and returns it.
@discardableResult
func expectCurlError(
    _ expected: CurlError,
    _ operation: () async throws -> Void
) async -> CurlError? {
    do {
        try await operation()
        Issue.record("expected \(expected), got success")
        return nil
    } catch let error as CurlError {
        #expect(error == expected, "got \(error)")
        return error
    } catch {
        Issue.record("expected \(expected), got \(error)")
        return nil
    }
}
