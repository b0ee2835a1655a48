// `swift run -c release StoryGateBenchmarks [tokens]`: prints throughput figures (see TokenBenchmarks).
let arguments = CommandLine.arguments.dropFirst()
let suites = arguments.isEmpty ? ["tokens"] : Array(arguments)
for suite in suites {
    switch suite {
    case "tokens":
        TokenBenchmarks.run()
    case "tokens-profile":
        TokenBenchmarks.profile()
    default:
        print("unknown benchmark suite \(suite); known: tokens")
    }
}
