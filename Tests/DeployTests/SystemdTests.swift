import Foundation
import Gateway
import GatewayConfig
import TestSupport
import Testing

/// deploy/systemd/storygate.service: the hardening the issue asks for, and `systemd-analyze verify` where
/// systemd-analyze is installed (skipped elsewhere).
@Suite struct SystemdTests {
    static let unitPath = "deploy/systemd/storygate.service"

    /// `Key=Value` lines by key (a key may repeat), comments and section headers skipped.
    let settings: [String: [String]]

    init() throws {
        var settings: [String: [String]] = [:]
        for line in try Repository.text(Self.unitPath).split(separator: "\n") {
            guard !line.hasPrefix("#"), !line.hasPrefix("["), let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
        }
        self.settings = settings
    }

    func value(_ key: String) -> String? { self.settings[key]?.last }

    @Test func theServiceIsHardened() {
        #expect(self.value("DynamicUser") == "yes")
        #expect(self.value("NoNewPrivileges") == "yes")
        #expect(self.value("ProtectSystem") == "strict")
        #expect(self.value("ProtectHome") == "yes")
        #expect(self.value("PrivateTmp") == "yes")
        #expect(self.value("CapabilityBoundingSet") == "")
        #expect(self.value("RestrictAddressFamilies") == "AF_INET AF_INET6 AF_UNIX")
        #expect(self.settings["SystemCallFilter"]?.first == "@system-service")
        #expect(self.value("LimitNOFILE") == "65536")
    }

    /// Media lives in the state directory, the one place the service may write.
    @Test func mediaIsInTheStateDirectory() throws {
        let state = try #require(self.value("StateDirectory")).split(separator: " ").map(String.init)
        #expect(state.first == "storygate")
        let media = try #require(self.settings["Environment"]?.first { $0.hasPrefix("MEDIA_DIR=") })
        #expect(media == "MEDIA_DIR=/var/lib/storygate/media")
        #expect(state.contains("storygate/media"))
    }

    @Test func stoppingWaitsForTheDrain() throws {
        #expect(self.value("KillSignal") == "SIGTERM")
        let timeout = try #require(self.value("TimeoutStopSec").flatMap(Double.init))
        #expect(timeout > ServerLimits().shutdownGraceSeconds)
        #expect(self.value("EnvironmentFile")?.hasPrefix("/etc/storygate/") == true)
        #expect(self.value("ExecStart")?.hasPrefix("/usr/local/bin/storygate serve") == true)
    }

    static let analyzer = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The unit as systemd reads it, with ExecStart pointed at /bin/true (the binary is not installed here): no
    /// warning at all, and an exposure level of at most 2.0 ("OK") in `systemd-analyze security`.
    @Test(.enabled(if: Self.analyzer != nil, "systemd-analyze is not installed"))
    func systemdAnalyzeAcceptsTheUnit() async throws {
        let analyzer = try #require(Self.analyzer)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storygate-unit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let unit = folder.appendingPathComponent("storygate.service")
        let text = try Repository.text(Self.unitPath).replacingOccurrences(of: "/usr/local/bin/storygate", with: "/bin/true")
        try text.write(to: unit, atomically: true, encoding: .utf8)

        // Waited for on a thread of its own, not on the cooperative pool the other tests' gateways need.
        let verify = try await offCooperativePool { try Self.run(analyzer, ["verify", "--man=no", unit.path]) }
        #expect(verify.status == 0, "systemd-analyze verify: \(verify.output)")
        #expect(verify.output.isEmpty, "systemd-analyze verify: \(verify.output)")
        let security = try await offCooperativePool { try Self.run(analyzer, ["security", "--offline=yes", "--threshold=20", unit.path]) }
        #expect(security.status == 0, "exposure above 2.0: \(security.output.suffix(400))")
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
