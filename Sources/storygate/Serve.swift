import ArgumentParser
import Gateway
import GatewayConfig
import Logging

#if canImport(Glibc)
import Glibc
#endif

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the gateway.",
        discussion: """
            Configured by the defaults, then the YAML config file (--config, or STORYGATE_CONFIG), then environment \
            variables (HOST, PORT, ENV, FIREBASE_PROJECT_ID, …), then the flags. An invalid file or value stops start-up \
            (exit 2). See storygate.example.yaml and docs/configuration.md; `storygate check-config` prints the result.
            """
    )

    @Option(help: "The YAML config file (default: STORYGATE_CONFIG, or none).")
    var config: String?

    @Option(help: "Address to bind (overrides listen.host and HOST).")
    var host: String?

    @Option(help: "Port to bind (overrides listen.port and PORT).")
    var port: Int?

    func run() async throws {
        let configuration: GatewayConfiguration
        // Read again on SIGHUP.
        let source = ConfigurationSource(
            configPath: self.config, environment: ProcessEnvironment.current, overrides: CommandLineOverrides(host: self.host, port: self.port)
        )
        do {
            configuration = try source.load()
        } catch {
            ProcessEnvironment.printConfigurationErrors(error)
            throw ExitCode(2)
        }
        let logLevel = LogLevelSetting(configuration.logLevel)
        Bootstrap.logging(logLevel)
        // Log lines still waiting in the buffer leave before the process does.
        defer { LogLineWriter.standardError.flush() }
        let logger = Logger(label: "storygate")
        let application: GatewayApplication
        do {
            application = try GatewayApplication(
                configuration: configuration, logger: logger,
                accessLogOutput: .jsonStandardError(label: "storygate.access", level: configuration.logLevel),
                source: source, logLevel: logLevel
            )
        } catch {
            ProcessEnvironment.printConfigurationErrors(error)
            throw ExitCode(2)
        }
        Bootstrap.metrics(application.metrics)
        do {
            try await application.run()
        } catch let error as ListenError {
            LogLineWriter.standardError.flush()
            ProcessEnvironment.printError("storygate: \(error)")
            throw ExitCode(2)
        }
    }
}

enum ProcessEnvironment {
    static var current: [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let separator = text.firstIndex(of: "=") {
                result[String(text[..<separator])] = String(text[text.index(after: separator)...])
            }
            pointer += 1
        }
        return result
    }

    /// One `storygate: configuration error:` line per problem.
    static func printConfigurationErrors(_ error: any Error) {
        guard let error = error as? ConfigurationError else {
            Self.printError("storygate: configuration error: \(error)")
            return
        }
        for problem in error.all { Self.printError("storygate: configuration error: \(problem)") }
    }

    static func printError(_ message: String) {
        let line = message + "\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}
