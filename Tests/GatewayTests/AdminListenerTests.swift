import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import Testing
import TestSupport

/// The admin listener serves `/metrics`, `/healthz`, `/readyz` and `/config` (secrets redacted) apart from the public
/// port, which keeps `/healthz` and `/readyz` and serves `/metrics` only when a route says so.
@Suite("admin listener")
struct AdminListenerTests {
    @Test("the admin listener answers /metrics, /healthz, /readyz and /config, and /config holds no secret")
    func adminPaths() async throws {
        try await GatewayHarness.run(configure: { configuration in
            configuration.openAIAPIKey = Secret("sk-admin-test-key-must-not-show")
            // Nothing listens there: failing open, the gateway is ready all the same.
            configuration.redisURL = "redis://:hunter2-admin-password@127.0.0.1:9/0"
        }) { gateway in
            let metrics = try await gateway.admin("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.text.contains("# TYPE storygate_http_requests_total counter"))
            #expect(try await gateway.admin("/healthz").text == "{\"status\":\"ok\"}")
            #expect(try await gateway.admin("/readyz").status == 200)
            let config = try await gateway.admin("/config")
            #expect(config.status == 200)
            #expect(config.text.contains("url: redis://:<redacted>@127.0.0.1:9/0"), "\(config.text)")
            #expect(config.text.contains("api_key: <redacted>"))
            #expect(!config.text.contains("hunter2-admin-password"))
            #expect(!config.text.contains("sk-admin-test-key-must-not-show"))
            let unknown = try await gateway.admin("/v1/me")
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "NOT_FOUND")
        }
    }

    @Test("the public listener keeps /healthz and /readyz and answers 404 on /metrics by default")
    func publicHasNoMetrics() async throws {
        try await GatewayHarness.run { gateway in
            #expect(try await gateway.get("/healthz").status == 200)
            #expect(try await gateway.get("/readyz").status == 200)
            let metrics = try await gateway.get("/metrics")
            #expect(metrics.status == 404)
            #expect(!metrics.text.contains("storygate_http_requests_total"))
            #expect(try await gateway.get("/config").status == 404)
        }
    }

    @Test("a route with builtin: metrics serves /metrics on the public listener")
    func metricsRoute() async throws {
        let yaml = "builtin_routes: true\nroutes:\n  - {path: /internal/metrics, builtin: metrics, auth: none}\n"
        let routes = try GatewayConfiguration(yaml: yaml, environment: ["ENV": "dev"]).routes
        try await GatewayHarness.run(configure: { $0.routes = routes }) { gateway in
            let metrics = try await gateway.get("/internal/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.text.contains("# TYPE storygate_http_requests_total counter"))
            #expect(try await gateway.get("/metrics").status == 404)
        }
    }

    @Test("ADMIN_PORT=off (or port: off in the file) opens no admin listener")
    func off() async throws {
        let configuration = try GatewayConfiguration(environment: ["ENV": "dev", "ADMIN_PORT": "off"])
        #expect(configuration.admin == nil)
        #expect(try GatewayConfiguration(yaml: "admin: {port: off}\n", environment: ["ENV": "dev"]).admin == nil)
        #expect(try GatewayConfiguration(yaml: "admin: {host: '::1', port: 0}\n", environment: ["ENV": "dev"]).admin == AdminListener(host: "::1", port: 0))
        #expect(try GatewayConfiguration(environment: ["ENV": "dev"]).admin == AdminListener(host: "127.0.0.1", port: 9901))
        try await GatewayHarness.run(configure: { $0.admin = nil }) { (gateway: GatewayHarness) async throws -> Void in
            let health = try await gateway.get("/healthz")
            #expect(health.status == 200)
            #expect(gateway.application.admin == nil)
            #expect(!gateway.application.services.contains { $0 is AdminServer })
            #expect(gateway.adminPort == nil)
        }
    }

    @Test(
        "a bad ADMIN_PORT or ADMIN_HOST is a configuration error naming it",
        arguments: [
            (["ADMIN_PORT": "x"], "ADMIN_PORT must be a whole number from 0 to 65535, or off, not 'x'"),
            (["ADMIN_PORT": "65536"], "ADMIN_PORT must be a whole number from 0 to 65535, or off, not '65536'"),
            (["ADMIN_HOST": "not a host"], "ADMIN_HOST must be a host name or IP address"),
            (["ADMIN_PORT": "8080"], "ADMIN_PORT must differ from PORT (both are 8080 on 127.0.0.1)"),
        ]
    )
    func badEnvironment(environment: [String: String], message: String) throws {
        let error = try #require(throws: ConfigurationError.self) {
            try GatewayConfiguration(environment: environment.merging(["ENV": "dev"]) { own, _ in own })
        }
        #expect(error.all.count == 1)
        #expect(error.description.hasPrefix(message), "\(error)")
    }

    @Test("a bad admin section in the file names the file, line and key")
    func badFile() throws {
        let port = try #require(throws: ConfigurationError.self) {
            try GatewayConfiguration(yaml: "admin:\n  host: 127.0.0.1\n  port: nope\n", environment: ["ENV": "dev"])
        }
        #expect(port.description == "storygate.yaml:3: admin.port: must be a whole number from 0 to 65535, or off, not 'nope'", "\(port)")
        let key = try #require(throws: ConfigurationError.self) {
            try GatewayConfiguration(yaml: "admin:\n  listen: 9901\n", environment: ["ENV": "dev"])
        }
        #expect(key.description.hasPrefix("storygate.yaml:2: admin.listen: unknown key"), "\(key)")
    }
}
