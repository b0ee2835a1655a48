import CurlHTTP
import Logging
@testable import MockOpenAI
import OpenAI
import Synchronization
import Testing

extension Logger {
    /// Quiet: HummingbirdCore logs an error for each connection open when a test cancels the server.
    static var mockTests: Logger {
        var logger = Logger(label: "MockOpenAITests")
        logger.logLevel = .critical
        return logger
    }
}

/// A running mock server on an ephemeral port and a running curl client, for one test.
struct MockHarness: Sendable {
    let server: MockOpenAIServer
    let provider: CannedProvider
    let client: CurlClient
    let port: Int

    var baseURL: String { "http://127.0.0.1:\(self.port)/v1" }

    /// `POST baseURL + path` with a JSON body and `Authorization: Bearer <key>` (none when `key` is nil).
    func post(
        _ path: String, json: String, key: String? = "sk-test", timeout: Duration = .seconds(10)
    ) async throws -> CurlResponse {
        try await self.post(path, body: Array(json.utf8), contentType: "application/json", key: key, timeout: timeout)
    }

    func post(
        _ path: String, body: [UInt8], contentType: String?, key: String? = "sk-test", timeout: Duration = .seconds(10),
        method: String = "POST"
    ) async throws -> CurlResponse {
        var headers: [CurlHeader] = []
        if let contentType { headers.append(CurlHeader("Content-Type", contentType)) }
        if let key { headers.append(CurlHeader("Authorization", "Bearer \(key)")) }
        return try await self.client.execute(
            CurlRequest(url: self.baseURL + path, method: method, headers: headers, body: body, timeout: timeout, maxResponseBytes: 64 << 20)
        )
    }
}

/// Waits for the port from `onServerRunning`, or the error if `run()` fails first.
final class PortBox: Sendable {
    private let state = Mutex<(port: Int?, waiter: CheckedContinuation<Int, any Error>?, failure: (any Error)?)>((nil, nil, nil))

    func set(_ port: Int) {
        let waiter = self.state.withLock { state in
            state.port = port
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: port)
    }

    func fail(_ error: any Error) {
        let waiter = self.state.withLock { state in
            state.failure = error
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(throwing: error)
    }

    func wait() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Int, any Error>? = self.state.withLock { state in
                if let port = state.port { return .success(port) }
                if let failure = state.failure { return .failure(failure) }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}

/// Runs `body` with a fresh mock server (over a new ``CannedProvider``) and curl client; stops both afterwards.
@discardableResult
func withMockServer<Result: Sendable>(
    _ configure: (inout MockOpenAIConfiguration) -> Void = { _ in },
    _ body: (MockHarness) async throws -> Result
) async throws -> Result {
    var configuration = MockOpenAIConfiguration()
    configure(&configuration)
    let provider = CannedProvider()
    let box = PortBox()
    let server = MockOpenAIServer(configuration: configuration, provider: provider, logger: .mockTests) { port in box.set(port) }
    let serverTask = Task {
        do { try await server.run() } catch { box.fail(error) }
        box.fail(CancellationError())
    }
    let client = CurlClient(logger: .mockTests)
    let clientTask = Task { try await client.run() }
    defer {
        serverTask.cancel()
        clientTask.cancel()
    }
    let port = try await box.wait()
    let result = try await body(MockHarness(server: server, provider: provider, client: client, port: port))
    clientTask.cancel()
    serverTask.cancel()
    try? await clientTask.value
    await serverTask.value
    return result
}

extension CurlResponse {
    /// The body parsed as JSON (fails the test when it is not).
    var json: JSONValue {
        let value = JSONValue.parse(self.body)
        #expect(value != nil, "not JSON: \(String(decoding: self.body, as: UTF8.self))")
        return value ?? .null
    }
}

/// Asserts OpenAI's error shape and returns `error.code`.
@discardableResult
func expectOpenAIError(_ response: CurlResponse, status: Int, type: String? = nil, code: String? = nil, param: String? = nil) -> JSONValue? {
    #expect(response.status == status, "status \(response.status): \(String(decoding: response.body, as: UTF8.self))")
    #expect(response.header("Content-Type") == "application/json")
    let error = response.json["error"]
    #expect(error?["message"]?.stringValue?.isEmpty == false)
    #expect(error?["param"] != nil && error?["code"] != nil && error?["type"] != nil, "error object lacks a key")
    if let type { #expect(error?["type"]?.stringValue == type) }
    if let code { #expect(error?["code"]?.stringValue == code) }
    if let param { #expect(error?["param"]?.stringValue == param) }
    return error
}

/// A valid structured chat completion request body.
func chatBody(user: String = "Write a story about Mia.", model: String = "gpt-5") -> String {
    #"""
    {"model":"\#(model)","messages":[{"role":"system","content":"You write stories for children."},{"role":"user","content":"\#(user)"}],
     "response_format":{"type":"json_schema","json_schema":{"name":"story","strict":true,"schema":{"type":"object","additionalProperties":false,"required":["title"],"properties":{"title":{"type":"string"}}}}},
     "safety_identifier":"hash-123","max_completion_tokens":2000}
    """#
}

/// Returns once `condition` holds, checking between yields; fails after `limit`.
func waitUntil(limit: Duration = .seconds(10), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met in \(limit)")
            throw CancellationError()
        }
        await Task.yield()
    }
}
