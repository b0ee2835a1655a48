import Foundation
import Gateway
import GatewayConfig
import Testing
import TestSupport

/// The `storygate` binary as an operator runs it: the version, unknown commands, per-command help, a port in use,
/// and dev mode started outside the repository. The binary is the one `swift build` put beside this test bundle.
@Suite("storygate on the command line")
struct CommandLineTests {
    /// `.build/<triple>/debug/storygate`, beside the test bundle.
    static let binary = Executable.folder(of: Executable.path ?? "") + "/storygate"

    struct Run {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs the binary with only `environment` (plus PATH) in a fresh folder outside the repository, and waits.
    /// Runs the binary on a thread of its own: waiting for a process must not hold one of the few threads of the
    /// cooperative pool, which the gateways of other tests running meanwhile need.
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Run {
        try await RawSocketClient.onThread { try Self.runBlocking(arguments, environment: environment) }
    }

    private static func runBlocking(_ arguments: [String], environment: [String: String]) throws -> Run {
        #expect(FileManager.default.isExecutableFile(atPath: Self.binary), "build it first: swift build --build-tests")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storygate-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputFile = folder.appendingPathComponent("stdout"), errorFile = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { own, _ in own }
        // Files, not pipes: nothing to drain while the child runs.
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, output: try String(contentsOf: outputFile, encoding: .utf8),
            error: try String(contentsOf: errorFile, encoding: .utf8)
        )
    }

    @Test("--version, -V and version print the package version and the checkout's commit", arguments: [["--version"], ["-V"], ["version"]])
    func version(arguments: [String]) async throws {
        let result = try await Self.run(arguments)
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output == BuildInfo.current.line + "\n")
        // The binary runs from this checkout: its commit is known.
        let commit = try #require(BuildInfo.current.commit)
        #expect(result.output == "storygate \(BuildInfo.packageVersion) (commit \(commit))\n")
    }

    @Test("an unknown command names the commands, with a did-you-mean, and exits 64")
    func unknownCommand() async throws {
        let result = try await Self.run(["serv"])
        #expect(result.status == 64)
        #expect(
            result.error
                == "storygate: no such command 'serv'; did you mean 'serve'? commands: serve, check-config, mint-token, mint-app-check, mock-openai, healthcheck, version, help\n"
        )
        let far = try await Self.run(["zzzzzz"])
        #expect(far.status == 64)
        #expect(far.error.hasPrefix("storygate: no such command 'zzzzzz'; commands: serve, "))
    }

    @Test("help <command> prints that command's help")
    func helpForOneCommand() async throws {
        let serve = try await Self.run(["help", "serve"])
        #expect(serve.status == 0, "\(serve.error)")
        #expect(serve.output.contains("Run the gateway."))
        #expect(serve.output.contains("--config"))
        let mint = try await Self.run(["help", "mint-token"])
        #expect(mint.output.contains("--uid"))
        #expect(!mint.output.contains("Run the gateway."))
    }

    @Test("a port in use is one line naming the address, exit 2 (dev mode, started outside the repository)")
    func portInUse() async throws {
        try await withLocalHTTPServer({ _ in LocalResponse.text("taken") }) { holder in
            let result = try await Self.run(["serve"], environment: ["ENV": "dev", "HOST": "127.0.0.1", "PORT": "\(holder.port)", "ADMIN_PORT": "off", "LOG_LEVEL": "critical"])
            #expect(result.status == 2)
            #expect(
                result.error
                    == "storygate: cannot listen on 127.0.0.1:\(holder.port): address already in use; set PORT (listen.port in the file, --port) to a free port\n"
            )
        }
    }

    @Test("an admin port in use names ADMIN_PORT, exit 2, and no cancellation noise from the public listener")
    func adminPortInUse() async throws {
        try await withLocalHTTPServer({ _ in LocalResponse.text("taken") }) { holder in
            let result = try await Self.run(
                ["serve"], environment: ["ENV": "dev", "HOST": "127.0.0.1", "PORT": "0", "ADMIN_PORT": "\(holder.port)", "LOG_LEVEL": "info"]
            )
            #expect(result.status == 2)
            #expect(
                result.error.hasSuffix(
                    "storygate: cannot listen on 127.0.0.1:\(holder.port): address already in use; set ADMIN_PORT (admin.port in the file) to a free port, or to off\n"
                ),
                "\(result.error)"
            )
            #expect(!result.error.contains("CancellationError"), "\(result.error)")
        }
    }

    /// The admin listener is what the kubelet probes, so the container check asks it too; with `ADMIN_PORT=off` the
    /// public listener's `/readyz`. The listener not asked is a refused port (1), so asking it would fail the check.
    @Test("healthcheck GETs the admin listener's /readyz, the public one's with ADMIN_PORT=off")
    func healthcheckAsksTheAdminListener() async throws {
        try await withLocalHTTPServer({ request in
            request.path == "/readyz" ? LocalResponse.text("ready") : LocalResponse(status: 404)
        }) { listener in
            let admin = try await Self.run(["healthcheck"], environment: ["ADMIN_PORT": "\(listener.port)", "PORT": "1"])
            #expect(admin.status == 0, "\(admin.output)")
            #expect(admin.output == "healthy: http://127.0.0.1:\(listener.port)/readyz answered 200\n")
            let off = try await Self.run(["healthcheck"], environment: ["ADMIN_PORT": "off", "PORT": "\(listener.port)"])
            #expect(off.status == 0, "\(off.output)")
            #expect(off.output == "healthy: http://127.0.0.1:\(listener.port)/readyz answered 200\n")
            let refused = try await Self.run(["healthcheck", "--timeout-seconds", "2"], environment: ["ADMIN_PORT": "1", "PORT": "\(listener.port)"])
            #expect(refused.status == 1)
            #expect(refused.output.hasPrefix("unhealthy: http://127.0.0.1:1/readyz"))
        }
    }

    @Test("RAW_PATH and DIRECT_PATH were removed: set, they are ignored with one warning line at start")
    func removedSettingsWarn() async throws {
        // A port in use ends the run right after the start-up lines.
        try await withLocalHTTPServer({ _ in LocalResponse.text("taken") }) { holder in
            let result = try await Self.run(
                ["serve"],
                environment: [
                    "ENV": "dev", "HOST": "127.0.0.1", "PORT": "\(holder.port)", "ADMIN_PORT": "0", "LOG_LEVEL": "warning", "RAW_PATH": "false", "DIRECT_PATH": "false",
                ]
            )
            #expect(result.status == 2)
            let lines = result.error.split(separator: "\n").filter { $0.contains("removed") }
            #expect(lines.count == 1, "\(result.error)")
            #expect(lines.first?.contains("DIRECT_PATH, RAW_PATH were removed and are ignored: every request takes the one edge path") == true)
        }
    }

    @Test("dev mode with a DEV_CERTS_DIR that has no certificate set stops at start, exit 2, naming the variable")
    func devCertificatesMissing() async throws {
        let result = try await Self.run(["serve"], environment: ["ENV": "dev", "PORT": "0", "DEV_CERTS_DIR": "/nonexistent/dev-certs"])
        #expect(result.status == 2)
        #expect(
            result.error
                == "storygate: configuration error: DEV_CERTS_DIR must be a folder holding the dev certificate set (certs.json): cannot read /nonexistent/dev-certs/certs.json\n"
        )
    }

    @Test("mint-token outside the repository finds certs/dev in the checkout the binary is in")
    func mintTokenFromElsewhere() async throws {
        let result = try await Self.run(["mint-token", "--uid", "alice"], environment: ["ENV": "dev"])
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.split(separator: ".").count == 3)
    }

    @Test("check-config fails exactly when serve refuses to start: the example file in prod needs an OpenAI key")
    func checkConfigAgreesWithServe() async throws {
        let example = GatewayHarness.repositoryRoot + "/storygate.example.yaml"
        let line = "storygate: configuration error: OPENAI_API_KEY is required when ENV=prod: the built-in AI functions call OpenAI (set it, or OPENAI_API_KEY_FILE to a file holding it)\n"
        let check = try await Self.run(["check-config", "--config", example])
        #expect(check.status == 2)
        #expect(check.error == line)
        let serve = try await Self.run(["serve", "--config", example])
        #expect(serve.status == 2)
        #expect(serve.error == line)
        let keyed = try await Self.run(["check-config", "--config", example], environment: ["OPENAI_API_KEY": "sk-test"])
        #expect(keyed.status == 0, "\(keyed.error)")
        #expect(keyed.error == "")
        let devCerts = try await Self.run(["check-config"], environment: ["ENV": "dev", "DEV_CERTS_DIR": "/nonexistent/dev-certs"])
        #expect(devCerts.status == 2)
        #expect(devCerts.error.contains("DEV_CERTS_DIR must be a folder holding the dev certificate set"))
    }

    @Test("every configuration error in one run, one a line, from check-config and serve alike", arguments: ["check-config", "serve"])
    func everyError(command: String) async throws {
        let result = try await Self.run([command], environment: ["ENV": "dev", "PORT": "x", "LOG_LEVEL": "loud"])
        #expect(result.status == 2)
        #expect(
            result.error == """
                storygate: configuration error: PORT must be a whole number from 0 to 65535, not 'x'
                storygate: configuration error: LOG_LEVEL must be one of trace, debug, info, notice, warning, error, critical, not 'loud'

                """
        )
    }
}
