import Foundation
import Gateway
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The `storygate` binary on SIGHUP: it keeps running, logs the reload and serves the file's new route.
@Suite("SIGHUP reloads the storygate process")
struct ReloadSignalTests {
    /// Waits (on a thread of its own) until the file at `path` has a line containing `text`; returns that line.
    static func line(in path: String, containing text: String, process: Process) async throws -> String {
        try await RawSocketClient.onThread {
            for _ in 0..<3000 {
                let content = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                if let line = content.split(separator: "\n").first(where: { $0.contains(text) }) { return String(line) }
                guard process.isRunning else { throw Failure(description: "storygate exited: \(content)") }
                usleep(10_000)
            }
            throw Failure(description: "no line with \(text) in \(path)")
        }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func get(_ path: String, port: Int) async throws -> String {
        try await RawSocketClient.exchange(port: port, text: "GET \(path) HTTP/1.1\r\nHost: a\r\nX-User-Id: kid\r\nConnection: close\r\n\r\n")
    }

    @Test("kill -HUP: the process keeps running, logs the reload and serves the new route")
    func sighup() async throws {
        let folder = try ReloadTests.ConfigFolder()
        try folder.write(ReloadTests.config())
        let errorFile = folder.path + "/stderr"
        _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLineTests.binary)
        process.arguments = ["serve", "--config", folder.file]
        process.currentDirectoryURL = URL(fileURLWithPath: folder.path)
        process.environment = ["PATH": "/usr/bin:/bin", "DEV_CERTS_DIR": GatewayHarness.repositoryRoot + "/certs/dev"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorFile))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        let listening = try await Self.line(in: errorFile, containing: "\"listener\":\"public\"", process: process)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(listening.utf8)) as? [String: Any])
        let port = try #require(object["port"] as? Int)
        #expect(try await Self.get("/added", port: port).hasPrefix("HTTP/1.1 404"))

        try folder.write(ReloadTests.config(routes: ["{path: /added, name: added, builtin: me}"]))
        #expect(kill(process.processIdentifier, SIGHUP) == 0)
        let done = try await Self.line(in: errorFile, containing: "\"message\":\"reload done\"", process: process)
        #expect(done.contains("\"applied\":[\"routes\"]"), "\(done)")
        let changed = try await Self.line(in: errorFile, containing: "\"message\":\"reload: changed\"", process: process)
        #expect(changed.contains("\"added\":[\"added\"]"), "\(changed)")
        #expect(process.isRunning)
        let answer = try await Self.get("/added", port: port)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer.prefix(200))")

        kill(process.processIdentifier, SIGTERM)
        let status = await RawSocketClient.onThread {
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(status == 0)
    }
}
