// `swift run -c release StoryGateBenchmarks [tokens|curl|ratelimit|wire ...]`: prints the figures in BENCHMARKS.md.
let arguments = CommandLine.arguments.dropFirst()
let suites = arguments.isEmpty ? ["tokens"] : Array(arguments)
for suite in suites {
    switch suite {
    case "tokens":
        TokenBenchmarks.run()
    case "tokens-profile":
        TokenBenchmarks.profile()
    case "curl":
        try await runCurlBenchmarks()
    case "ratelimit":
        try await runRateLimitBenchmarks()
    case "wire":
        WireBenchmarks.run()
    default:
        print("unknown benchmark suite \(suite); known: tokens, curl, ratelimit, wire")
    }
}
