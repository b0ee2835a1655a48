import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import IDTokens
import Logging
import ServiceLifecycle
import Synchronization
import TestSupport

/// A real gateway on a real socket (port 0), with a local x509 cert server, and a libcurl client to call it.
struct GatewayHarness: Sendable {
    let port: Int
    /// The admin listener's port (the harness binds it to port 0); nil when a test turned it off.
    let adminPort: Int?
    let client: CurlClient
    let application: GatewayApplication
    let certServer: LocalHTTPServer
    let certificates: CertificateEndpoint
    /// Starts the gateway's graceful shutdown (as SIGTERM would).
    let triggerShutdown: @Sendable () async -> Void

    static let logger: Logger = {
        var logger = Logger(label: "storygate-test")
        logger.logLevel = .critical
        return logger
    }()

    /// The repository root, for `certs/dev`.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// Runs `body` against a gateway configured by `configure` (prod, the test project, the local cert server).
    static func run(
        certificates: CertificateEndpoint = CertificateEndpoint(),
        configure: (inout GatewayConfiguration) -> Void = { _ in },
        policy: CertificateRefreshPolicy = .init(),
        extraRoutes: [Route] = [],
        accessLogger: Logger? = nil,
        logger: Logger = Self.logger,
        waitUntilReady: Bool = true,
        googleAccessToken: (@Sendable () async throws -> String)? = nil,
        source: ConfigurationSource? = nil,
        logLevel: LogLevelSetting? = nil,
        _ body: @Sendable (GatewayHarness) async throws -> Void
    ) async throws {
        try await withLocalHTTPServer({ request in certificates.respond(to: request) }) { certServer in
            var configuration = GatewayConfiguration()
            configuration.port = 0
            configuration.firebaseProjectID = TestKeys.projectID
            configuration.firebaseCertsURL = certServer.baseURL + "/certs"
            configuration.devCertsDirectory = Self.repositoryRoot + "/certs/dev"
            // Prod needs a key for the AI functions; tests that call them point the base URL at a local fake.
            configuration.openAIAPIKey = Secret("sk-test-not-a-real-key")
            configuration.openAIBaseURL = "http://127.0.0.1:9/v1"
            // Each run's media directory is its own, and is removed when the run ends.
            let mediaDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("storygate-media-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: mediaDirectory) }
            configuration.mediaDirectory = mediaDirectory
            configuration.admin = AdminListener(port: 0)
            configure(&configuration)
            // A gateway started from a config file (and reloadable from it) is configured by the file alone.
            if let source { configuration = try source.load() }
            let (ports, portContinuation) = AsyncStream<Int>.makeStream()
            let (adminPorts, adminPortContinuation) = AsyncStream<Int>.makeStream()
            let application = try GatewayApplication(
                configuration: configuration, logger: logger, certificatePolicy: policy, extraRoutes: extraRoutes,
                accessLogger: accessLogger, googleAccessToken: googleAccessToken, onServerRunning: { portContinuation.yield($0) },
                onAdminRunning: { adminPortContinuation.yield($0) }, source: source, logLevel: logLevel
            )
            // At most 256 connections to the gateway at once, more requests waiting in curl: a burst of 1,000 new
            // connections overflowed the listen backlog (1,024, shared with the other tests' gateways) and a dropped
            // SYN is retried only after a second or more, which a loaded machine turned into a 10 s client timeout.
            let client = CurlClient(configuration: .init(maxConnectionsPerHost: 256), logger: Self.logger)
            // The client runs apart and stops only once the body is done: a test that shuts the gateway down while a
            // call is in flight still reads that call's answer (in one group, the client stopped as soon as the
            // gateway had, sometimes before curl had finished reading the last answer).
            let group = ServiceGroup(services: application.services, logger: Self.logger)
            let clientGroup = ServiceGroup(services: [client], logger: Self.logger)
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                tasks.addTask { try await clientGroup.run() }
                var iterator = ports.makeAsyncIterator()
                var adminIterator = adminPorts.makeAsyncIterator()
                let port = await iterator.next()
                let adminPort = application.admin == nil ? nil : await adminIterator.next()
                guard let port, application.admin == nil || adminPort != nil else {
                    await clientGroup.triggerGracefulShutdown()
                    throw HarnessError(description: "the gateway did not start")
                }
                let harness = GatewayHarness(
                    port: port, adminPort: adminPort, client: client, application: application, certServer: certServer, certificates: certificates,
                    triggerShutdown: { await group.triggerGracefulShutdown() }
                )
                do {
                    if waitUntilReady { try await harness.waitUntilReady() }
                    try await body(harness)
                } catch {
                    await group.triggerGracefulShutdown()
                    await clientGroup.triggerGracefulShutdown()
                    throw error
                }
                await group.triggerGracefulShutdown()
                await clientGroup.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }

    struct HarnessError: Error, CustomStringConvertible {
        let description: String
    }

    /// Polls /readyz until it answers 200 (bounded; the first certificate fetch is asynchronous).
    func waitUntilReady() async throws {
        for _ in 0..<500 {
            if try await self.get("/readyz").status == 200 { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw HarnessError(description: "the gateway never became ready")
    }

    func request(_ method: String = "GET", _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws -> CurlResponse {
        try await self.client.execute(
            CurlRequest(
                url: "http://127.0.0.1:\(self.port)\(path)", method: method,
                headers: headers.map { CurlHeader($0.0, $0.1) }, body: body, timeout: .seconds(10)
            )
        )
    }

    func get(_ path: String, headers: [(String, String)] = []) async throws -> CurlResponse {
        try await self.request("GET", path, headers: headers)
    }

    /// The admin listener's `/metrics` once no request is in flight on the public one. A request is counted after
    /// its answer is written, so a scrape on another connection could otherwise come before the count (bounded).
    func settledMetrics() async throws -> String {
        var text = ""
        for _ in 0..<500 {
            text = try await self.admin("/metrics").text
            if text.contains("\nstorygate_http_requests_in_flight 0.0\n") { return text }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw HarnessError(description: "requests stayed in flight: \(text.split(separator: "\n").filter { $0.contains("in_flight") })")
    }

    /// A GET on the admin listener.
    func admin(_ path: String) async throws -> CurlResponse {
        guard let adminPort else { throw HarnessError(description: "the admin listener is off") }
        return try await self.client.execute(CurlRequest(url: "http://127.0.0.1:\(adminPort)\(path)", method: "GET", timeout: .seconds(10)))
    }

    func me(token: String) async throws -> CurlResponse {
        try await self.get("/v1/me", headers: [("Authorization", "Bearer " + token)])
    }
}

/// What the local cert server serves: a mutable x509 JSON document, a Cache-Control header, or a failure.
final class CertificateEndpoint: Sendable {
    struct State {
        var keys: [String: String]
        var cacheControl: String? = "public, max-age=3600"
        var failing = false
        var fetches = 0
    }

    private let state: Mutex<State>

    init(keys: [String: String] = [TestKeys.primaryKeyID: TestKeys.primaryCertificatePEM]) {
        self.state = Mutex(State(keys: keys))
    }

    var fetches: Int { self.state.withLock { $0.fetches } }

    func update(_ change: (inout State) -> Void) {
        self.state.withLock { change(&$0) }
    }

    func respond(to request: LocalRequest) -> LocalResponse {
        self.state.withLock { state in
            state.fetches += 1
            if state.failing { return LocalResponse.text("unavailable", status: 503) }
            var response = LocalResponse(status: 200, body: TestKeys.googleX509JSON(state.keys))
            response.headers = [("Content-Type", "application/json; charset=UTF-8")]
            if let cacheControl = state.cacheControl { response.headers.append(("Cache-Control", cacheControl)) }
            return response
        }
    }
}

extension CurlResponse {
    /// The body parsed as a JSON object.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(self.body))) as? [String: Any] ?? [:]
    }

    var errorCode: String? { (self.json["error"] as? [String: Any])?["code"] as? String }
    var errorMessage: String? { (self.json["error"] as? [String: Any])?["message"] as? String }
    var text: String { String(decoding: self.body, as: UTF8.self) }
}
