import Foundation
import Gateway
import Testing

/// README's "first five minutes", run as written: every `curl` command between the markers goes to a dev-mode
/// gateway (offline provider) through /usr/bin/curl, and its answer must be a 200 (or the status of the error shown)
/// with every field the README shows, and the same value wherever the README writes one in full (no `…`).
@Suite("README: the first five minutes")
struct ReadmeQuickStartTests {
    struct Example {
        var command: String
        /// The answer as the README shows it, shortened with `…`.
        var shownAnswer: String
    }

    /// The `sh` blocks between the markers, each followed by the `json` block of its answer.
    static func examples() throws -> [Example] {
        let readme = try String(contentsOfFile: GatewayHarness.repositoryRoot + "/README.md", encoding: .utf8)
        let begin = try #require(readme.range(of: "<!-- first-five-minutes:begin -->"))
        let end = try #require(readme.range(of: "<!-- first-five-minutes:end -->"))
        let section = readme[begin.upperBound..<end.lowerBound]
        var examples: [Example] = []
        var pending: String?
        var block: (language: String, lines: [String])?
        for line in section.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if var open = block {
                if line == "```" {
                    let text = open.lines.joined(separator: "\n")
                    if open.language == "sh" {
                        pending = text
                    } else if open.language == "json", let command = pending {
                        examples.append(Example(command: command, shownAnswer: text))
                        pending = nil
                    }
                    block = nil
                } else {
                    open.lines.append(line)
                    block = open
                }
            } else if line.hasPrefix("```") {
                block = (String(line.dropFirst(3)), [])
            }
        }
        return examples
    }

    /// Every `"key":` in the shown answer.
    static func shownKeys(_ text: String) -> Set<String> {
        Set(text.matches(of: /"([A-Za-z_]+)":/).map { String($0.output.1) })
    }

    /// Every `"key":"value"` or `"key":number` the README writes in full.
    static func shownValues(_ text: String) -> [(key: String, value: String)] {
        text.matches(of: /"([A-Za-z_]+)":("[^"…]*"|-?[0-9.]+)(?=[,}\]])/).map { (String($0.output.1), String($0.output.2)) }
    }

    /// Every key of the answer at any depth, and each scalar value written as JSON.
    static func collect(_ value: Any, into pairs: inout [(key: String, value: String)]) {
        if let object = value as? [String: Any] {
            for (key, member) in object {
                if let text = member as? String {
                    let data = try! JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])
                    pairs.append((key, String(decoding: data.dropFirst().dropLast(), as: UTF8.self)))
                } else if let number = member as? NSNumber {
                    pairs.append((key, number.stringValue))
                } else {
                    pairs.append((key, ""))
                }
                Self.collect(member, into: &pairs)
            }
        } else if let array = value as? [Any] {
            for member in array { Self.collect(member, into: &pairs) }
        }
    }

    /// Runs `command` with `sh -c`, the README's port replaced, and returns the status and body.
    static func run(_ command: String, port: Int) throws -> (status: Int, body: String) {
        let local = command.replacingOccurrences(of: "localhost:8080", with: "127.0.0.1:\(port)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", local + " --max-time 20 -w '\\n%{http_code}'"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var text = String(decoding: data, as: UTF8.self)
        let statusLine = text.split(separator: "\n").last.map(String.init) ?? ""
        text = String(text.dropLast(statusLine.count))
        return (Int(statusLine) ?? 0, text)
    }

    @Test("every command of the first five minutes answers as the README shows")
    func firstFiveMinutes() async throws {
        let examples = try Self.examples()
        // /v1/me, the five functions and the error example.
        #expect(examples.count == 7)
        #expect(examples.first?.command.contains("/v1/me") == true)
        for function in ["story-generation", "extract-scenes", "audio-synthesis", "avatar-generation", "scene-illustration"] {
            #expect(examples.contains { $0.command.contains("/functions/v1/\(function) ") }, "no example of \(function)")
        }
        try await GatewayHarness.run(configure: FunctionsEndToEndTests.dev) { gateway in
            for example in examples {
                #expect(example.command.hasPrefix("curl "), "\(example.command)")
                // Off the cooperative pool: the gateway under test needs its threads while curl runs.
                let port = gateway.port
                let (status, body) = try await RawSocketClient.onThread { try Self.run(example.command, port: port) }
                let expectedStatus = example.shownAnswer.contains("\"error\":") ? 400 : 200
                #expect(status == expectedStatus, "\(example.command) answered \(status): \(body)")
                let answer = try JSONSerialization.jsonObject(with: Data(body.utf8))
                var pairs: [(key: String, value: String)] = []
                Self.collect(answer, into: &pairs)
                let keys = Set(pairs.map(\.key))
                for key in Self.shownKeys(example.shownAnswer) {
                    #expect(keys.contains(key), "\(example.command): no \"\(key)\" in \(body)")
                }
                for shown in Self.shownValues(example.shownAnswer) {
                    #expect(
                        pairs.contains { $0.key == shown.key && $0.value == shown.value },
                        "\(example.command): \"\(shown.key)\" is not \(shown.value) in \(body)"
                    )
                }
            }
        }
    }
}
