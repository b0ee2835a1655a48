import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import IDTokens
import Logging
import Synchronization
import Testing
import TestSupport

/// `/metrics` moves as requests do, and the access log writes one JSON line per request without secrets.
@Suite("Metrics and access log")
struct ObservabilityTests {
    static func dev(_ configuration: inout GatewayConfiguration) {
        configuration.mode = .dev
        configuration.firebaseProjectID = nil
        configuration.authFailureLimit = nil
    }

    /// `name{labels} value` lines of a Prometheus text exposition, by `name{labels}`.
    static func samples(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    @Test("request, auth and rate-limit counters move with the requests; in-flight and certificate metrics are there")
    func countersMove() async throws {
        try await GatewayHarness.run(configure: Self.dev, extraRoutes: [RateLimitEndToEndTests.limitedRoute]) { gateway in
            let before = Self.samples(try await gateway.settledMetrics())
            #expect(before["storygate_http_requests_total{route=\"healthz\",status=\"200\"}"] ?? 0 >= 0)
            for _ in 0..<3 { #expect(try await gateway.get("/healthz").status == 200) }
            for _ in 0..<2 { #expect(try await gateway.get("/v1/me", headers: [("X-User-Id", "metrics-user")]).status == 200) }
            #expect(try await gateway.get("/v1/me").status == 401)
            #expect(try await gateway.get("/v1/me", headers: [("Authorization", "Bearer not.a.token")]).status == 401)
            #expect(try await gateway.get("/nope").status == 404)
            for _ in 0..<12 {
                _ = try await gateway.request("POST", "/test/limited", headers: [("X-User-Id", "metrics-limited")], body: [])
            }

            let settled = try await gateway.settledMetrics()
            let scrape = try await gateway.admin("/metrics")
            #expect(scrape.status == 200)
            #expect(scrape.header("content-type")?.hasPrefix("text/plain; version=0.0.4") == true)
            let after = Self.samples(settled)
            func delta(_ key: String) -> Double { (after[key] ?? 0) - (before[key] ?? 0) }
            #expect(delta("storygate_http_requests_total{route=\"healthz\",status=\"200\"}") == 3)
            #expect(delta("storygate_http_requests_total{route=\"me\",status=\"200\"}") == 2)
            #expect(delta("storygate_http_requests_total{route=\"me\",status=\"401\"}") == 2)
            #expect(delta("storygate_http_requests_total{route=\"-\",status=\"404\"}") == 1)
            #expect(delta("storygate_http_requests_total{route=\"limited-test\",status=\"200\"}") == 10)
            #expect(delta("storygate_http_requests_total{route=\"limited-test\",status=\"429\"}") == 2)
            #expect(delta("storygate_http_request_duration_seconds_count{route=\"healthz\"}") == 3)
            #expect(delta("storygate_auth_results_total{result=\"ok\",reason=\"dev\"}") == 14)
            #expect(delta("storygate_auth_results_total{result=\"failed\",reason=\"missing\"}") == 1)
            #expect(delta("storygate_auth_results_total{result=\"failed\",reason=\"malformed\"}") == 1)
            #expect(delta("storygate_rate_limit_decisions_total{limit=\"story-generation\",decision=\"allowed\"}") == 10)
            #expect(delta("storygate_rate_limit_decisions_total{limit=\"story-generation\",decision=\"limited\"}") == 2)
            // The scrape is on the admin listener: it is not a public request in flight.
            #expect(after["storygate_http_requests_in_flight"] == 0)
            #expect(after["storygate_cert_fetches_total{project=\"storygate-dev\",result=\"ok\"}"] ?? 0 >= 1)
            #expect(after["storygate_cert_set_age_seconds{project=\"storygate-dev\"}"] ?? -1 >= 0)
        }
    }

    @Test("one JSON line per request with route, status, latency, auth source and a uid hash; never a token or raw uid")
    func accessLog() async throws {
        let lines = Mutex<[String]>([])
        let accessLogger = Logger(label: "storygate.access") { label in
            JSONLogHandler(label: label, level: .info, sink: { line in lines.withLock { $0.append(line) } })
        }
        let token = TokenFactory().token(uid: "raw-uid-in-token", now: WallClock.now())
        try await GatewayHarness.run(configure: { _ in }, accessLogger: accessLogger) { gateway in
            let verified = try await gateway.me(token: token)
            let rejected = try await gateway.get("/v1/me", headers: [("Authorization", "Bearer " + token + "x")])
            let health = try await gateway.get("/healthz?secret=query-value", headers: [("X-Request-ID", "trace-42")])
            #expect(verified.status == 200)
            #expect(rejected.status == 401)
            #expect(health.status == 200)
        }
        let logged = lines.withLock { $0 }.filter { $0.contains("\"message\":\"request\"") && !$0.contains("\"/readyz\"") }
        #expect(logged.count == 3)
        let objects = try logged.map { line in
            #expect(line.hasSuffix("}\n"))
            #expect(!line.contains(token.prefix(40)))
            #expect(!line.contains("raw-uid-in-token"))
            #expect(!line.contains("query-value"))
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects[0]["route"] as? String == "me")
        #expect(objects[0]["status"] as? Int == 200)
        #expect(objects[0]["auth"] as? String == "firebase")
        #expect(objects[0]["uid_hash"] as? String == UserHash.logIdentifier("raw-uid-in-token"))
        #expect(objects[0]["latency_ms"] is Double)
        #expect(objects[0]["method"] as? String == "GET")
        #expect((objects[0]["time"] as? String)?.hasSuffix("Z") == true)
        #expect(objects[1]["status"] as? Int == 401)
        #expect(objects[1]["uid_hash"] == nil)
        #expect(objects[1]["error"] as? String != nil)
        #expect(objects[0]["client"] as? String == "127.0.0.1")
        #expect(objects[0]["bytes_in"] as? Int == 0)
        #expect((objects[0]["bytes_out"] as? Int ?? 0) > 0, "the answer's JSON body")
        #expect(objects[0]["upstream"] == nil)
        #expect(objects[2]["request_id"] as? String == "trace-42")
        #expect(objects[2]["path"] as? String == "/healthz")
    }

    @Test("upstream latency, timeouts and unreachable upstreams are counted per route; the access log has the upstream and its latency")
    func upstreamMetrics() async throws {
        let lines = Mutex<[String]>([])
        let accessLogger = Logger(label: "storygate.access") { label in
            JSONLogHandler(label: label, level: .info, sink: { line in lines.withLock { $0.append(line) } })
        }
        let port = try refusingLoopbackPort()
        try await withUpstreamTestServer { upstream in
            try await GatewayHarness.run(
                configure: { configuration in
                    configuration.routes += ProxyFixture.routes(upstream: upstream.baseURL)
                    configuration.routes.append(
                        RouteConfiguration(path: .prefix("/down/"), target: .upstream(UpstreamURL("http://127.0.0.1:\(port)")!), auth: .none)
                    )
                },
                accessLogger: accessLogger
            ) { gateway in
                for _ in 0..<2 { #expect(try await gateway.get("/open/echo").status == 200) }
                #expect(try await gateway.get("/slow/hang").status == 504)
                #expect(try await gateway.get("/down/x").status == 502)
                let metrics = Self.samples(try await gateway.settledMetrics())
                #expect(metrics["storygate_upstream_duration_seconds_count{route=\"/open/\"}"] == 2)
                #expect(metrics["storygate_upstream_errors_total{route=\"/slow/\",kind=\"timeout\"}"] == 1)
                #expect(metrics["storygate_upstream_errors_total{route=\"/down/\",kind=\"unreachable\"}"] == 1)
                #expect(metrics["storygate_http_requests_total{route=\"/down/\",status=\"502\"}"] == 1)
            }
        }
        let proxied = lines.withLock { $0 }.filter { $0.contains("\"route\":\"/open/\"") }
        #expect(proxied.count == 2)
        #expect(proxied.allSatisfy { $0.contains("\"upstream_latency_ms\":") })
        #expect(proxied.allSatisfy { $0.contains("\"upstream\":\"127.0.0.1:") }, "\(proxied)")
    }

    @Test("one listening line per listener, with host and port as fields and the port a JSON number")
    func listeningLine() async throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "storygate") { label in
            JSONLogHandler(label: label, level: .info, sink: { line in lines.withLock { $0.append(line) } })
        }
        let ports = Mutex((0, 0))
        try await GatewayHarness.run(logger: logger) { gateway in ports.withLock { $0 = (gateway.port, gateway.adminPort ?? -1) } }
        let listening = lines.withLock { $0 }.filter { $0.contains("listening") }
        #expect(listening.count == 2, "\(listening)")
        let objects = try listening.map { line in try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) }
        for (listener, port) in [("public", ports.withLock { $0.0 }), ("admin", ports.withLock { $0.1 })] {
            let lines = objects.filter { $0["listener"] as? String == listener }
            #expect(lines.count == 1, "\(listening)")
            let object = try #require(lines.first)
            #expect(object["host"] as? String == "127.0.0.1")
            #expect(object["port"] as? Int == port)
            #expect(object["address"] == nil)
        }
    }

    @Test("numbers and flags in log metadata are JSON numbers and booleans, not strings")
    func numbersInLogs() async throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "storygate") { label in
            JSONLogHandler(label: label, level: .info, sink: { line in lines.withLock { $0.append(line) } })
        }
        let store = CertificateStore(projectID: "p", source: FileCertificateSource(path: "/nonexistent/storygate/certs.json"), logger: logger)
        await store.refresh()
        let line = try #require(lines.withLock { $0 }.first { $0.contains("certificate fetch failed") })
        #expect(line.contains("\"failures\":1,"), "\(line)")
        #expect(line.contains("\"serving_stale\":false"), "\(line)")
        #expect(!line.contains("\"retry_in_s\":\""), "\(line)")
    }
}
