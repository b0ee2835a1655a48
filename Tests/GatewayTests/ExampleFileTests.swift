import Foundation
import GatewayConfig
import Testing

/// `storygate.example.yaml` says it lists every key: it is checked against the configuration reference.
@Suite("Example config file")
struct ExampleFileTests {
    /// The dotted key paths of a YAML text, read from its indentation; a commented-out key (`# key: …`, the `#` at
    /// the key's indentation) counts, as the example shows unset optional keys so. List items are not entered.
    static func keyPaths(_ text: String) -> Set<String> {
        var paths: Set<String> = []
        var stack: [(indent: Int, key: String)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let indent = line.prefix { $0 == " " }.count
            var rest = line.dropFirst(indent)
            if rest.hasPrefix("# ") { rest = rest.dropFirst(2) }
            guard let match = rest.prefixMatch(of: /([a-z][a-z0-9_]*):(\s|$)/) else { continue }
            while let last = stack.last, last.indent >= indent { stack.removeLast() }
            let path = (stack.map(\.key) + [String(match.output.1)]).joined(separator: ".")
            paths.insert(path)
            stack.append((indent, String(match.output.1)))
        }
        return paths
    }

    @Test("storygate.example.yaml has every key of the configuration reference")
    func everyKey() throws {
        let text = try String(contentsOfFile: GatewayHarness.repositoryRoot + "/storygate.example.yaml", encoding: .utf8)
        let paths = Self.keyPaths(text)
        #expect(paths.count >= 60, "the example's keys were not read: \(paths.count)")
        for key in ConfigurationReference.keys where !key.isEmpty {
            if key.hasSuffix(".<name>") {
                let parent = String(key.dropLast(".<name>".count))
                let present = paths.contains { $0.hasPrefix(parent + ".") }
                #expect(present, "\(key) is not in storygate.example.yaml")
            } else {
                let present = paths.contains(key)
                #expect(present, "\(key) is not in storygate.example.yaml")
            }
        }
    }
}
