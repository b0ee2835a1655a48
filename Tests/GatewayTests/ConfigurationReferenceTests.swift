import Foundation
@testable import Gateway
@testable import GatewayConfig
import Testing

/// `ConfigurationReference` is the one table of keys and variables: docs/configuration.md shows it exactly, and it
/// names every variable the environment reader reads and every key the file reader assigns.
@Suite("Configuration reference")
struct ConfigurationReferenceTests {
    static let root = GatewayHarness.repositoryRoot

    /// The text of every Swift file in `folder` (relative to the repository root).
    static func sources(_ folder: String) throws -> [(name: String, text: String)] {
        let directory = Self.root + "/" + folder
        return try FileManager.default.contentsOfDirectory(atPath: directory).sorted().filter { $0.hasSuffix(".swift") }.map { name in
            (name, try String(contentsOfFile: directory + "/" + name, encoding: .utf8))
        }
    }

    @Test("docs/configuration.md holds the table as check-config --reference prints it")
    func documentMatchesTable() throws {
        let document = try String(contentsOfFile: Self.root + "/docs/configuration.md", encoding: .utf8)
        let begin = try #require(document.range(of: "<!-- configuration-reference:begin -->\n"))
        let end = try #require(document.range(of: "<!-- configuration-reference:end -->"))
        let shown = String(document[begin.upperBound..<end.lowerBound])
        #expect(
            shown == ConfigurationReference.markdown,
            "docs/configuration.md differs from ConfigurationReference: paste the output of `storygate check-config --reference` between the markers"
        )
    }

    @Test("every variable the configuration reads is in the table, and every variable in the table is read")
    func variablesMatchReaders() throws {
        var read: Set<String> = []
        // The readers name each variable as a string literal (`reader.integer("PORT", …)`); RATE_LIMIT_ is the
        // prefix of the per-limit variables.
        for file in try Self.sources("Sources/GatewayConfig") where file.name != "ConfigurationReference.swift" {
            for match in file.text.matches(of: /"([A-Z][A-Z0-9_]{2,})"/) {
                let name = String(match.output.1)
                read.insert(name == "RATE_LIMIT_" ? "RATE_LIMIT_<NAME>" : name)
            }
        }
        for file in try Self.sources("Sources/storygate") {
            for match in file.text.matches(of: /environment\["([A-Z][A-Z0-9_]*)"\]/) { read.insert(String(match.output.1)) }
        }
        #expect(read.count >= 40, "the reader's variables were not found: \(read.sorted())")
        let table = ConfigurationReference.variables
        #expect(read.subtracting(table).isEmpty, "read but not in ConfigurationReference: \(read.subtracting(table).sorted())")
        #expect(table.subtracting(read).isEmpty, "in ConfigurationReference but never read: \(table.subtracting(read).sorted())")
    }

    @Test("every key the config file reader assigns is in the table")
    func keysMatchFileReader() throws {
        var assigned: Set<String> = []
        for file in try Self.sources("Sources/GatewayConfig") {
            for match in file.text.matches(of: /\.assign\(&[^,]+, "([a-z_]+)"/) { assigned.insert(String(match.output.1)) }
        }
        #expect(assigned.count >= 40, "the reader's keys were not found: \(assigned.sorted())")
        let lastComponents = Set(ConfigurationReference.keys.map { String($0.split(separator: ".").last ?? "") })
        #expect(assigned.subtracting(lastComponents).isEmpty, "assigned but not in ConfigurationReference: \(assigned.subtracting(lastComponents).sorted())")
        // The top-level keys the file accepts.
        let topLevel = Set(ConfigurationReference.keys.map { String($0.split(separator: ".").first ?? "") })
        #expect(Set(ConfigFile.keys).subtracting(topLevel).isEmpty, "top-level keys not in ConfigurationReference: \(Set(ConfigFile.keys).subtracting(topLevel).sorted())")
    }
}
