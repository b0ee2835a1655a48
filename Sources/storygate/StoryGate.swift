import ArgumentParser
import Gateway
import GatewayConfig

@main
struct StoryGate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storygate",
        abstract: "StoryGate: the API gateway in front of the StoryGate AI functions.",
        discussion: "With no command, runs `serve`. `storygate help <command>` explains one command; `storygate --version` (-V) prints the version.",
        subcommands: [Serve.self, CheckConfig.self, MintToken.self, MintAppCheck.self, MockOpenAICommand.self, Healthcheck.self, VersionCommand.self],
        defaultSubcommand: Serve.self
    )

    /// Answers `--version`/`-V` and refuses an unknown command before the parser sees them: with `serve` as the
    /// default, the parser would read `storygate serv` as serve with an unexpected argument.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch CommandLineRouting.route(arguments, commands: Self.commandNames) {
        case .version:
            print(BuildInfo.current.line)
        case .unknownCommand(let message):
            ProcessEnvironment.printError("storygate: \(message)")
            Self.exit(withError: ExitCode.validationFailure)
        case .parse:
            await Self.main(arguments)
        }
    }

    /// Every command's name, `help` last.
    static var commandNames: [String] {
        Self.configuration.subcommands.map { $0._commandName } + ["help"]
    }
}

/// What the first arguments ask for, before the argument parser runs.
enum CommandLineRouting: Equatable {
    case version
    case unknownCommand(String)
    /// Everything else: the argument parser takes it (a command, or options for the default `serve`).
    case parse

    static func route(_ arguments: [String], commands: [String]) -> CommandLineRouting {
        guard let first = arguments.first else { return .parse }
        if first == "--version" || first == "-V" { return .version }
        if first.hasPrefix("-") || commands.contains(first) { return .parse }
        let suggestion = Suggestion.closest(to: first, among: commands).map { "; did you mean '\($0)'?" } ?? ";"
        return .unknownCommand("no such command '\(first.prefix(100))'\(suggestion) commands: \(commands.joined(separator: ", "))")
    }
}
