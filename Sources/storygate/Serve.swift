import ArgumentParser
import Gateway
import Logging

#if canImport(Glibc)
import Glibc
#endif

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the gateway.",
        discussion: "Configured from the environment (HOST, PORT, ENV, FIREBASE_PROJECT_ID, FIREBASE_CERTS_URL, CLOCK_SKEW_SECONDS, TOKEN_CACHE_SIZE, DEV_CERTS_DIR, DEV_ALLOW_NON_LOOPBACK, LOG_LEVEL); flags override it. See README.md."
    )

    @Option(help: "Address to bind (overrides HOST).")
    var host: String?

    @Option(help: "Port to bind (overrides PORT).")
    var port: Int?

    func run() async throws {
        var environment = ProcessEnvironment.current
        if let host { environment["HOST"] = host }
        if let port { environment["PORT"] = String(port) }
        let configuration: GatewayConfiguration
        do {
            configuration = try GatewayConfiguration(environment: environment)
        } catch {
            ProcessEnvironment.printError("storygate: configuration error: \(error)")
            throw ExitCode(2)
        }
        Bootstrap.logging(level: configuration.logLevel)
        let logger = Logger(label: "storygate")
        let application: GatewayApplication
        do {
            application = try GatewayApplication(
                configuration: configuration, logger: logger, accessLogger: Logger(label: "storygate.access")
            )
        } catch {
            ProcessEnvironment.printError("storygate: configuration error: \(error)")
            throw ExitCode(2)
        }
        Bootstrap.metrics(application.metrics)
        try await application.run()
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

    static func printError(_ message: String) {
        let line = message + "\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}
