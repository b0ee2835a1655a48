import ArgumentParser
import Gateway

/// `storygate version`: the package version, and the git commit when the binary runs from a checkout.
struct VersionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "version",
        abstract: "Print the version (and the git commit when the binary runs from a git checkout)."
    )

    func run() {
        print(BuildInfo.current.line)
    }
}
