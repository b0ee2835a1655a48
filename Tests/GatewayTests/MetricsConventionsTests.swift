import CurlHTTP
import Foundation
import Gateway
import Testing

/// `/metrics` follows the Prometheus conventions: `# HELP` and `# TYPE` on every family (the OpenAI families made
/// through swift-metrics too), the process metrics, and the build info.
@Suite("Metrics conventions")
struct MetricsConventionsTests {
    /// The families with a `# TYPE` line, and those with a `# HELP` line.
    static func families(_ text: String) -> (typed: [String], described: Set<String>) {
        var typed: [String] = [], described: Set<String> = []
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 3)
            guard words.count >= 3, words[0] == "#" else { continue }
            if words[1] == "TYPE" { typed.append(String(words[2])) }
            if words[1] == "HELP", words.count == 4, !words[3].isEmpty { described.insert(String(words[2])) }
        }
        return (typed, described)
    }

    @Test("after an AI function over the OpenAI client, every family has HELP; process metrics and build info are there")
    func everyFamilyDescribed() async throws {
        try await OpenAIPathEndToEndTests().run { (gateway: GatewayHarness, _) async throws in
            #expect(try await OpenAIPathEndToEndTests().scenes(gateway).status == 200)
            let text = try await gateway.settledMetrics()
            let (typed, described) = Self.families(text)
            for name in ["storygate_openai_tokens_total", "storygate_openai_call_duration_seconds", "storygate_http_requests_total"] {
                #expect(typed.contains(name), "\(name) is missing")
            }
            for name in typed { #expect(described.contains(name), "\(name) has no # HELP") }
            #expect(Set(typed).count == typed.count, "a family is typed twice")

            let samples = ObservabilityTests.samples(text)
            let commit = BuildInfo.current.commit ?? "unknown"
            #expect(samples["storygate_build_info{version=\"\(BuildInfo.packageVersion)\",commit=\"\(commit)\"}"] == 1)
            let now = Date().timeIntervalSince1970
            let start = try #require(samples["process_start_time_seconds"])
            #expect(start <= now + 1 && start > now - 86_400 * 30)
            #expect(try #require(samples["process_cpu_seconds_total"]) > 0)
            #expect(try #require(samples["process_resident_memory_bytes"]) > 1_000_000)
            #expect(try #require(samples["process_open_fds"]) >= 3)
            #expect(typed.contains("process_max_fds"))
        }
    }
}
