import ArgumentParser
import Gateway

/// `storygate check-config --config F`: loads the configuration exactly as `serve` would (file, then environment)
/// and prints the effective result as YAML with secrets redacted, or the first problem.
struct CheckConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate the configuration and print the effective result (secrets redacted).",
        discussion: """
            Applies the config file (--config, or STORYGATE_CONFIG) and the environment variables as `serve` does, then \
            prints every value as YAML in the file's own keys. Exit 0 when valid; otherwise the problem (file, line and \
            key) on standard error and exit 2.
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
            let configuration = try GatewayConfiguration.load(configPath: self.config, environment: ProcessEnvironment.current)
            text = try configuration.effectiveYAML()
            if configuration.mode == .prod, configuration.openAIAPIKey == nil {
                ProcessEnvironment.printError(
                    "storygate: warning: no OpenAI key (OPENAI_API_KEY, OPENAI_API_KEY_FILE or openai.api_key_file): serve refuses to start in prod without one"
                )
            }
        } catch {
            ProcessEnvironment.printError("storygate: configuration error: \(error)")
            throw ExitCode(2)
        }
        print(text, terminator: "")
    }
}
