import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import IDTokens
import Logging
import Synchronization
import Testing
import TestSupport

/// `reload()` (what SIGHUP runs) over HTTP: the config file is read again and routes, limits, the log level and
/// secrets change while connections stay open; an invalid file is refused and the running configuration serves on.
@Suite("configuration reload")
struct ReloadTests {
    /// A folder of its own holding `storygate.yaml` (rewritten by the tests) and secret files.
    final class ConfigFolder: Sendable {
        let path: String
        var file: String { self.path + "/storygate.yaml" }

        init() throws {
            self.path = FileManager.default.temporaryDirectory.appendingPathComponent("storygate-reload-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: self.path, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(atPath: self.path) }

        func write(_ text: String, to name: String = "storygate.yaml") throws {
            try text.write(toFile: self.path + "/" + name, atomically: true, encoding: .utf8)
        }

        var source: ConfigurationSource {
            ConfigurationSource(configPath: self.file, environment: ["DEV_CERTS_DIR": GatewayHarness.repositoryRoot + "/certs/dev"])
        }
    }

    /// A dev gateway on free ports with a `tight` limit on `/limited` and `routes` added.
    static func config(capacity: Int = 3, logLevel: String = "info", port: Int = 0, routes: [String] = []) -> String {
        """
        env: dev
        log_level: \(logLevel)
        access_log: false
        listen: {host: 127.0.0.1, port: \(port)}
        admin: {port: 0}
        rate_limits:
          tight: {capacity: \(capacity), period_seconds: 3600}
        builtin_routes: true
        routes:
          - {path: /limited, name: limited, builtin: me, rate_limit: tight}

        """ + routes.map { "  - \($0)\n" }.joined()
    }

    static func me(_ gateway: GatewayHarness, _ path: String, user: String = "kid") async throws -> CurlResponse {
        try await gateway.get(path, headers: [("X-User-Id", user)])
    }

    @Test("a route added to the file answers after reload(); a changed limit applies")
    func routeAndLimit() async throws {
        let folder = try ConfigFolder()
        try folder.write(Self.config(capacity: 3))
        try await GatewayHarness.run(source: folder.source) { gateway in
            #expect(try await Self.me(gateway, "/added").status == 404)
            let before = try await Self.me(gateway, "/limited", user: "before")
            #expect(before.header("ratelimit-policy") == "\"tight\";q=3;w=3600", "\(before.headers)")

            try folder.write(Self.config(capacity: 1, routes: ["{path: /added, name: added, builtin: me}"]))
            guard case .applied(let changes) = gateway.application.reload() else {
                Issue.record("the reload was refused")
                return
            }
            #expect(changes.applied.map(\.key) == ["routes", "rate_limits"])
            #expect(changes.needsRestart.isEmpty)
            #expect(try await Self.me(gateway, "/added").status == 200)
            let first = try await Self.me(gateway, "/limited", user: "after")
            #expect(first.status == 200)
            #expect(first.header("ratelimit-policy") == "\"tight\";q=1;w=3600")
            #expect(try await Self.me(gateway, "/limited", user: "after").status == 429)
            #expect(gateway.application.currentConfiguration.routes.contains { $0.name == "added" && $0.path == .exact("/added") })
        }
    }

    @Test("an invalid file is refused with check-config's error, and the running routes keep answering")
    func invalidRefused() async throws {
        let folder = try ConfigFolder()
        try folder.write(Self.config(routes: ["{path: /kept, name: kept, builtin: me}"]))
        try await GatewayHarness.run(source: folder.source) { gateway in
            #expect(try await Self.me(gateway, "/kept").status == 200)
            try folder.write(Self.config(routes: ["{path: /kept, name: kept, builtin: me}", "{path: /new, name: new, builtin: me, rate_limit: tigth}"]))
            let expected = try #require(throws: ConfigurationError.self) { try folder.source.load() }
            guard case .refused(let error) = gateway.application.reload() else {
                Issue.record("an invalid file was applied")
                return
            }
            #expect(error == expected)
            #expect(error.description.contains("routes[2].rate_limit: names no configured limit (did you mean 'tight'?)"), "\(error)")
            #expect(try await Self.me(gateway, "/kept").status == 200)
            #expect(try await Self.me(gateway, "/new").status == 404)
            #expect(gateway.application.currentConfiguration.routes.contains { $0.path == .exact("/kept") })

            try folder.write("env: dev\nlisten: [\n")
            guard case .refused = gateway.application.reload() else {
                Issue.record("a file that is not YAML was applied")
                return
            }
            #expect(try await Self.me(gateway, "/kept").status == 200)
        }
    }

    @Test("a keep-alive connection opened before the reload stays open and sees the new routes, built-in and proxied")
    func keepAliveConnection() async throws {
        try await withUpstreamTestServer { upstream in
            let folder = try ConfigFolder()
            try folder.write(Self.config())
            try await GatewayHarness.run(source: folder.source) { gateway in
                let connection = try RawConnection(port: gateway.port)
                let request = { @Sendable (path: String) in "GET \(path) HTTP/1.1\r\nHost: a\r\nX-User-Id: kid\r\n\r\n" }
                let answered = { @Sendable (bytes: [UInt8]) in String(decoding: bytes, as: UTF8.self).contains("\r\n\r\n") }
                connection.send(request("/added"))
                var answer = await connection.read(for: 5, until: answered)
                #expect(String(decoding: answer.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 404"))
                connection.send(request("/up/echo"))
                answer = await connection.read(for: 5, until: answered)
                #expect(String(decoding: answer.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 404"))

                try folder.write(
                    Self.config(routes: ["{path: /added, name: added, builtin: me}", "{path: /up/, upstream: '\(upstream.baseURL)', auth: none}"])
                )
                guard case .applied = gateway.application.reload() else {
                    Issue.record("the reload was refused")
                    return
                }
                // A built-in route, then a proxied one.
                connection.send(request("/added"))
                answer = await connection.read(for: 5, until: answered)
                #expect(String(decoding: answer.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200"), "\(String(decoding: answer.bytes, as: UTF8.self))")
                #expect(!answer.closed)
                connection.send(request("/up/echo"))
                answer = await connection.read(for: 5) { String(decoding: $0, as: UTF8.self).contains("bodyIntact") }
                #expect(String(decoding: answer.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200"), "\(String(decoding: answer.bytes, as: UTF8.self))")
                #expect(!answer.closed)
            }
        }
    }

    @Test("log level, a rotated secret file and a listen port: applied, applied without its value, needs a restart")
    func logLevelSecretAndRestart() async throws {
        let folder = try ConfigFolder()
        try folder.write("sk-first-key-0123456789\n", to: "openai-key")
        let withKey = { @Sendable (text: String) in text + "openai: {api_key_file: '\(folder.path)/openai-key'}\n" }
        try folder.write(withKey(Self.config()))
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "storygate") { label in
            JSONLogHandler(label: label, level: .info, sink: { line in lines.withLock { $0.append(line) } })
        }
        let level = LogLevelSetting(.info)
        try await GatewayHarness.run(logger: logger, source: folder.source, logLevel: level) { gateway in
            let port = gateway.port
            try folder.write("sk-second-key-9876543210\n", to: "openai-key")
            try folder.write(withKey(Self.config(logLevel: "debug", port: 1)))
            guard case .applied(let changes) = gateway.application.reload() else {
                Issue.record("the reload was refused")
                return
            }
            #expect(changes.applied.map(\.key) == ["log_level", "openai.api_key"])
            #expect(changes.needsRestart == ["listen.port"])
            #expect(level.level == .debug)
            #expect(gateway.application.currentConfiguration.port == 0, "a restart-only setting is left as it was")
            #expect(try await gateway.get("/healthz").status == 200)
            #expect(gateway.port == port)
            let config = try await gateway.admin("/config").text
            #expect(config.contains("log_level: debug"))
            #expect(!config.contains("sk-second-key"))
        }
        let logged = lines.withLock { $0 }.filter { $0.contains("reload") }
        #expect(logged.contains { $0.contains("\"message\":\"reload: changed\"") && $0.contains("\"key\":\"openai.api_key\"") }, "\(logged)")
        #expect(logged.contains { $0.contains("needs a restart") && $0.contains("\"key\":\"listen.port\"") }, "\(logged)")
        #expect(logged.contains { $0.contains("\"message\":\"reload done\"") }, "\(logged)")
        #expect(!lines.withLock { $0 }.contains { $0.contains("sk-first-key") || $0.contains("sk-second-key") })
    }

    @Test("a rotated identity-assertion secret file: the new key is accepted and the old one refused after reload()")
    func assertionSecretRotated() async throws {
        let folder = try ConfigFolder()
        try folder.write(ProxyFixture.secretText, to: "assertion-secret")
        let text = Self.config() + "proxy: {identity_assertion: {secret_file: '\(folder.path)/assertion-secret'}}\n"
        try folder.write(text)
        let assertion = { @Sendable (key: IdentityAssertionKey) in [("X-StoryGate-Identity", ProxyIdentityTests.assertion(uid: "alice", key: key))] }
        try await GatewayHarness.run(source: folder.source) { gateway in
            #expect(try await gateway.get("/v1/me", headers: assertion(ProxyFixture.key)).status == 200)
            #expect(try await gateway.get("/v1/me", headers: assertion(ProxyFixture.otherKey)).status == 401)
            try folder.write("a-different-secret-of-at-least-32-bytes", to: "assertion-secret")
            guard case .applied(let changes) = gateway.application.reload() else {
                Issue.record("the reload was refused")
                return
            }
            #expect(changes.applied.map(\.key) == ["proxy.identity_assertion.secret"])
            #expect(try await gateway.get("/v1/me", headers: assertion(ProxyFixture.otherKey)).status == 200)
            #expect(try await gateway.get("/v1/me", headers: assertion(ProxyFixture.key)).status == 401)
        }
    }

    @Test("what needs a restart is reported and kept from the running configuration; the rest is applied")
    func changesSplit() throws {
        var running = GatewayConfiguration()
        running.firebaseProjectID = "p"
        var loaded = running
        loaded.port = 9000
        loaded.redisURL = "redis://127.0.0.1:6379"
        loaded.server.maxConnections = 5
        loaded.logLevel = .error
        loaded.proxy.assertionSecret = Secret(String(repeating: "s", count: 40))
        loaded.proxy.idleTimeoutSeconds = 5
        let changes = ConfigurationChanges(from: running, to: loaded)
        #expect(changes.applied.map(\.key) == ["log_level", "proxy.identity_assertion.secret"])
        #expect(changes.needsRestart == ["listen.port", "redis.url", "server", "proxy.idle_timeout_seconds"])
        let applicable = ConfigurationChanges.applicable(loaded, running: running)
        var expected = running
        expected.logLevel = .error
        expected.proxy.assertionSecret = loaded.proxy.assertionSecret
        #expect(applicable == expected)
        #expect(ConfigurationChanges(from: running, to: applicable).needsRestart.isEmpty)
        #expect(ConfigurationChanges(from: running, to: running).isEmpty)
    }
}
