import Foundation
import Testing

/// deploy/docker-compose.yml works with Docker Compose v2 and with Debian 12's docker-compose 1.29, whose schema has
/// no top-level `name` (it refused the file with "'name' does not match any of the regexes: '^x-'").
@Suite struct ComposeCompatibilityTests {
    static let file = "deploy/docker-compose.yml"

    /// The top-level keys docker-compose 1.29's schema (config_schema_compose_spec.json) allows.
    static let sharedTopLevelKeys: Set<String> = ["version", "services", "networks", "volumes", "secrets", "configs"]

    @Test func everyTopLevelKeyIsKnownToDockerCompose129() throws {
        let compose = try Repository.yaml(Self.file)
        let unknown = compose.keys.filter { !Self.sharedTopLevelKeys.contains($0) && !$0.hasPrefix("x-") }
        #expect(unknown.isEmpty, "docker-compose 1.29 refuses the top-level keys \(unknown)")
        #expect(compose["services"].keys.count >= 5)
    }

    static let dockerCompose = ["/usr/bin/docker-compose", "/usr/local/bin/docker-compose"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Debian's docker-compose (scripts/setup.sh installs it) validates the file, as `up` would.
    @Test(.enabled(if: Self.dockerCompose != nil, "docker-compose is not installed"))
    func debiansDockerComposeAcceptsTheFile() throws {
        let result = try SystemdTests.run(
            try #require(Self.dockerCompose), ["-f", Repository.path(Self.file), "config", "-q"]
        )
        #expect(result.status == 0, "docker-compose config: \(result.output)")
    }
}
