import ArgumentParser

@main
struct StoryGate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storygate",
        abstract: "StoryGate: the API gateway in front of the StoryGate AI functions.",
        subcommands: [Serve.self, CheckConfig.self, MintToken.self, MockOpenAICommand.self, Healthcheck.self],
        defaultSubcommand: Serve.self
    )
}
