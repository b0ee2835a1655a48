import ArgumentParser
import Gateway
import Logging
import MockOpenAI
import ServiceLifecycle
import StoryFunctions
import UnixSignals

/// `storygate mock-openai`: OpenAI's HTTP API shape answered by the offline provider, for load tests that should
/// exercise the real libcurl path (`OPENAI_BASE_URL=http://127.0.0.1:<port>/v1`).
struct MockOpenAICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-openai",
        abstract: "Serve OpenAI's API shape locally from the offline provider (for load tests and local runs)."
    )

    @Option(help: "Address to bind.")
    var host: String = "127.0.0.1"

    @Option(help: "Port to bind (0: any free port).")
    var port: Int = 8081

    @Option(name: .customLong("latency-ms"), help: "Milliseconds added to every answer, like a real model's latency.")
    var latencyMilliseconds: Int = 0

    @Option(name: .customLong("record-dir"), help: "Write every request body to this directory (for conformance checks).")
    var recordDirectory: String?

    @Option(name: .customLong("api-key"), help: "Require this bearer key (default: any non-empty key).")
    var apiKey: String?

    func validate() throws {
        guard (0...65535).contains(self.port) else { throw ValidationError("--port must be from 0 to 65535") }
        guard (0...600_000).contains(self.latencyMilliseconds) else { throw ValidationError("--latency-ms must be from 0 to 600000") }
    }

    func run() async throws {
        // JSON lines on standard error, as `serve` writes them.
        Bootstrap.logging(LogLevelSetting(.info))
        defer { LogLineWriter.standardError.flush() }
        let logger = Logger(label: "storygate.mock-openai")
        var configuration = MockOpenAIConfiguration()
        configuration.host = self.host
        configuration.port = self.port
        configuration.latency = .milliseconds(self.latencyMilliseconds)
        configuration.recordDirectory = self.recordDirectory
        configuration.requiredAPIKey = self.apiKey
        let server = MockOpenAIServer(
            configuration: configuration, provider: OfflineProvider(), logger: logger
        )
        let group = ServiceGroup(
            configuration: .init(services: [.init(service: server)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        )
        try await group.run()
    }
}
