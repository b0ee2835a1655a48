import HummingbirdCore
public import Logging
import NIOCore
import NIOPosix
public import OpenAI
public import ServiceLifecycle

/// OpenAI's HTTP API shape served locally from an ``AIProvider`` (e.g. the offline provider), with scripted
/// faults and request recording, for tests and load tests that exercise the real HTTP client path.
///
/// Endpoints (all `POST`, base path `/v1`): `chat/completions` (structured output), `audio/speech`,
/// `images/generations`, `images/edits` (multipart) and `moderations`. Errors use OpenAI's shape
/// `{"error": {"message", "type", "param", "code"}}`: 401 `invalid_api_key`, 400 `invalid_request_error`,
/// 400 `content_policy_violation`, 404, 405, 413. Beside them, `GET /__mock/calls` answers ``calls`` as JSON.
///
/// ```swift
/// let server = MockOpenAIServer(configuration: .init(), provider: provider, logger: logger) { port in … }
/// server.faults.enqueue(.status(429, retryAfter: 1), .status(500), for: .chatCompletions)
/// // in a ServiceGroup, or: Task { try await server.run() }
/// ```
public final class MockOpenAIServer: Service, Sendable {
    /// The settings this server was made with.
    public let configuration: MockOpenAIConfiguration
    /// The fault script; change it at any time.
    public let faults = MockFaults()
    private let provider: any AIProvider
    private let recorder: RequestRecorder
    private let logger: Logger
    private let onServerRunning: @Sendable (Int) async -> Void

    /// A server; nothing starts until ``run()``. `onServerRunning` gets the bound port once it listens.
    public init(
        configuration: MockOpenAIConfiguration, provider: any AIProvider, logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.provider = provider
        self.logger = logger
        self.onServerRunning = onServerRunning
        self.recorder = RequestRecorder(limit: configuration.recordLimit, directory: configuration.recordDirectory, logger: logger)
    }

    /// The requests received so far (the newest ``MockOpenAIConfiguration/recordLimit``), oldest first.
    public var requests: [RecordedRequest] { self.recorder.requests }

    /// How many requests each endpoint has received since the server started, refused ones included (every endpoint
    /// present; not bounded by the record limit). Another process reads them at `GET /__mock/calls`.
    public var calls: [MockEndpoint: Int] { self.recorder.counts }

    /// Listens until graceful shutdown or cancellation; requests in flight are allowed to finish, and hanging
    /// ones (`.hang`) are cut.
    public func run() async throws {
        let responder = MockResponder(
            configuration: self.configuration, provider: self.provider, faults: self.faults, recorder: self.recorder, logger: self.logger
        )
        let logger = self.logger
        let onServerRunning = self.onServerRunning
        // HummingbirdCore's own "Server started" line at info would repeat the "mock-openai listening" one.
        var serverLogger = self.logger
        serverLogger.logLevel = max(serverLogger.logLevel, .notice)
        let server = try HTTPServerBuilder.http1(configuration: .init(idleTimeout: .seconds(75))).buildServer(
            configuration: .init(address: .hostname(self.configuration.host, port: self.configuration.port), serverName: nil),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            logger: serverLogger,
            responder: { request, writer, channel in
                try await responder.respond(to: request, writer: writer, channel: channel)
            },
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                logger.notice(
                    "mock-openai listening",
                    metadata: ["host": .string(channel.localAddress?.ipAddress ?? "?"), "port": .stringConvertible(port)]
                )
                await onServerRunning(port)
            }
        )
        try await server.run()
    }
}
