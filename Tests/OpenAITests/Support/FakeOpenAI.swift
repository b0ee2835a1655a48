import CurlHTTP
import Foundation
import Testing
import Logging
@testable import OpenAI
import Synchronization
import TestSupport

/// A fake OpenAI: a ``LocalHTTPServer`` that answers with a scripted handler and records each request
/// (and archives its body, see ``RequestArchive``).
final class FakeOpenAI: Sendable {
    /// Answers request number `n` (0-based) on any endpoint.
    typealias Script = @Sendable (_ request: LocalRequest, _ n: Int) async throws -> LocalResponse

    let server: LocalHTTPServer
    private let log: RequestLog

    fileprivate init(server: LocalHTTPServer, log: RequestLog) {
        self.server = server
        self.log = log
    }

    /// Requests received, in order.
    var requests: [LocalRequest] { self.log.all }
    var attempts: Int { self.server.requestCount }

    /// The body of request `n` as a JSON object.
    func json(_ n: Int = 0) throws -> [String: Any] {
        try #require(self.requests.count > n, "no request \(n)")
        return try #require(try JSONSerialization.jsonObject(with: Data(self.requests[n].body)) as? [String: Any])
    }
}

/// A fixed sequence of answers: answer `n` for request `n`, the last one for every later request.
func sequence(_ responses: LocalResponse...) -> FakeOpenAI.Script {
    { _, n in responses[min(n, responses.count - 1)] }
}

/// Test settings for the client: a short backoff so retries do not slow the suite.
struct ClientSettings {
    var maxAttempts = 3
    var deadline: Duration = .seconds(10)
    var backoffBase: Duration = .milliseconds(5)
    var backoffCap: Duration = .milliseconds(20)
    var jitter: RetryPolicy.Jitter = .fixed(1)
}

/// Runs `body` with a fake OpenAI answering with `script` and an ``OpenAIClient`` pointed at it over a
/// running ``CurlClient``; shuts both down afterwards.
@discardableResult
func withFakeOpenAI<Result: Sendable>(
    settings: ClientSettings = ClientSettings(),
    logs: CapturedLogs = CapturedLogs(),
    _ script: @escaping FakeOpenAI.Script,
    _ body: (OpenAIClient, FakeOpenAI) async throws -> Result
) async throws -> Result {
    let log = RequestLog()
    return try await withLocalHTTPServer({ request in
        let n = log.append(request)
        RequestArchive.record(request)
        return try await script(request, n)
    }) { server in
        let fake = FakeOpenAI(server: server, log: log)
        return try await withOpenAIClient(baseURL: server.baseURL + "/v1", settings: settings, logs: logs) { client in
            try await body(client, fake)
        }
    }
}

/// Runs `body` with an ``OpenAIClient`` for `baseURL` over a running ``CurlClient``.
@discardableResult
func withOpenAIClient<Result: Sendable>(
    baseURL: String,
    settings: ClientSettings = ClientSettings(),
    logs: CapturedLogs = CapturedLogs(),
    _ body: (OpenAIClient) async throws -> Result
) async throws -> Result {
    var curlLogger = Logger(label: "OpenAITests.curl")
    curlLogger.logLevel = .warning
    let http = CurlClient(logger: curlLogger)
    let configuration = OpenAIConfiguration(
        apiKey: APIKey(Fixtures.apiKey),
        baseURL: baseURL,
        maxAttempts: settings.maxAttempts,
        deadlines: .all(settings.deadline),
        connectTimeout: .seconds(2),
        backoffBase: settings.backoffBase,
        backoffCap: settings.backoffCap
    )
    let client = OpenAIClient(configuration: configuration, http: http, logger: logs.logger, jitter: settings.jitter)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await http.run() }
        defer { group.cancelAll() }
        return try await body(client)
    }
}

/// Runs `operation`, which must throw an `AIError`, and returns it.
func expectAIError<T>(_ operation: () async throws(AIError) -> T) async -> AIError? {
    do {
        let value = try await operation()
        Issue.record("expected an AIError, got \(value)")
        return nil
    } catch {
        return error
    }
}

/// The requests a fake received.
final class RequestLog: Sendable {
    private let requests = Mutex<[LocalRequest]>([])

    /// Appends `request`; returns its 0-based number.
    func append(_ request: LocalRequest) -> Int {
        self.requests.withLock {
            $0.append(request)
            return $0.count - 1
        }
    }

    var all: [LocalRequest] { self.requests.withLock { $0 } }
}
