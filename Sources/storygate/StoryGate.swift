import ArgumentParser

@main
struct StoryGate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "storygate", abstract: "The StoryGate API gateway.")
}
