import ArgumentParser
import Gateway
import GatewayConfig

/// `storygate check-config --config F`: loads the configuration exactly as `serve` would (file, then environment)
/// and checks what `serve` checks before it starts, then prints the effective result as YAML with secrets redacted,
/// or every problem.
struct CheckConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate the configuration and print the effective result (secrets redacted).",
        discussion: """
            Applies the config file (--config, or STORYGATE_CONFIG) and the environment variables as `serve` does, then \
            prints every value as YAML in the file's own keys. Exit 0 when `serve` would start; otherwise every problem \
            (file, line and key, or variable), one a line, on standard error and exit 2.
            """
    )

    @Option(help: "The YAML config file (default: STORYGATE_CONFIG, or none).")
    var config: String?

    @Flag(help: "Print the table of every config key and environment variable (docs/configuration.md) and exit.")
    var reference = false

    func run() async throws {
        if self.reference {
            print(ConfigurationReference.markdown, terminator: "")
            return
        }
        let text: String
        do {
            // The same load and start-up checks as `serve`: this fails exactly when serve would refuse to start.
            let configuration = try GatewayConfiguration.loadForStart(configPath: self.config, environment: ProcessEnvironment.current)
            text = try configuration.effectiveYAML()
        } catch {
            ProcessEnvironment.printConfigurationErrors(error)
            throw ExitCode(2)
        }
        print(text, terminator: "")
    }
}
