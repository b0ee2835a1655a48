import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import IDTokens
import RateLimiting
import Revocation
import TestSupport
import Testing

/// The revocation check through a real gateway: its service account gets tokens from a local OAuth endpoint and
/// looks users up at a local Identity Toolkit.
@Suite struct RevocationEndToEndTests {
    static let adminSecret = "end-to-end-admin-secret-0123456789"

    struct Google: Sendable {
        let oauth: LocalOAuthServer
        let toolkit: LocalIdentityToolkit
    }

    /// A gateway with `REVOCATION_CHECK=on` against local Google stand-ins; `configure` adjusts it further.
    static func run(
        configure: @escaping @Sendable (inout GatewayConfiguration, Google) -> Void = { _, _ in },
        _ body: @Sendable (GatewayHarness, Google) async throws -> Void
    ) async throws {
        try await withShutdown(try await LocalOAuthServer.start()) { oauth in
            try await withShutdown(try await LocalIdentityToolkit.start(oauth: oauth)) { toolkit in
                let google = Google(oauth: oauth, toolkit: toolkit)
                let credentials = TestServiceAccount.json(tokenURI: oauth.tokenURI)
                let path = FileManager.default.temporaryDirectory.appendingPathComponent("storygate-sa-\(UUID().uuidString).json").path
                try credentials.write(toFile: path, atomically: true, encoding: .utf8)
                defer { try? FileManager.default.removeItem(atPath: path) }
                try await GatewayHarness.run(configure: { configuration in
                    configuration.revocation.check = .on
                    configuration.googleCredentialsFile = path
                    configuration.revocation.identityToolkitURL = toolkit.baseURL
                    configuration.adminToken = Secret(Self.adminSecret)
                    configure(&configuration, google)
                }) { gateway in
                    try await body(gateway, google)
                }
            }
        }
    }

    static func token(_ uid: String, issuedAt: Double) -> String {
        TokenFactory().token(uid: uid, now: issuedAt)
    }

    @Test func everyOutcomeAtTheEdgeAndOneLookupPerUser() async throws {
        try await Self.run { gateway, google in
            let now = WallClock.now().rounded(.down)
            google.toolkit.setUser("fine")
            google.toolkit.setUser("signed-out", validSince: Int(now) - 30)
            google.toolkit.setUser("disabled", disabled: true)
            for _ in 0..<3 {
                #expect(try await gateway.me(token: Self.token("fine", issuedAt: now - 60)).status == 200)
                let revoked = try await gateway.me(token: Self.token("signed-out", issuedAt: now - 60))
                #expect(revoked.status == 403)
                #expect(revoked.errorCode == "TOKEN_REVOKED")
                let disabled = try await gateway.me(token: Self.token("disabled", issuedAt: now - 60))
                #expect(disabled.status == 403)
                #expect(disabled.errorCode == "USER_DISABLED")
                let deleted = try await gateway.me(token: Self.token("deleted", issuedAt: now - 60))
                #expect(deleted.status == 401)
                #expect(deleted.errorCode == "UNAUTHENTICATED")
                #expect(deleted.header("WWW-Authenticate")?.contains("invalid_token") == true)
            }
            // Signed in again after the revocation: a token issued since validSince passes.
            #expect(try await gateway.me(token: Self.token("signed-out", issuedAt: now - 10)).status == 200)
            for uid in ["fine", "signed-out", "disabled", "deleted"] { #expect(google.toolkit.lookups(of: uid) == 1, "\(uid)") }
            #expect(google.toolkit.rejections.isEmpty)
            #expect(google.oauth.rejections.isEmpty)
            #expect(google.oauth.issuedTokens.count == 1)
            // Requests without a Firebase token are not looked up.
            #expect(try await gateway.get("/healthz").status == 200)
            let metrics = try await gateway.settledMetrics()
            #expect(metrics.contains("storygate_revocation_lookups_total{result=\"active\"} 2"), "\(metrics.split(separator: "\n").filter { $0.contains("revocation") })")
            #expect(metrics.contains("# HELP storygate_revocation_cache_hits_total"))
        }
    }

    @Test func oneLookupForManyConcurrentRequestsOfOneUser() async throws {
        try await Self.run { gateway, google in
            google.toolkit.setUser("busy")
            google.toolkit.hold()
            let token = Self.token("busy", issuedAt: WallClock.now() - 5)
            async let statuses = withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<200 { group.addTask { try await gateway.me(token: token).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            while google.toolkit.requestCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
            google.toolkit.release()
            let all = try await statuses
            #expect(all.count == 200)
            #expect(all.allSatisfy { $0 == 200 })
            #expect(google.toolkit.lookups(of: "busy") == 1)
        }
    }

    @Test func theAdminRouteMakesASignOutTakeEffectAtOnce() async throws {
        try await Self.run { gateway, google in
            let issuedAt = WallClock.now() - 60
            google.toolkit.setUser("alice")
            #expect(try await gateway.me(token: Self.token("alice", issuedAt: issuedAt)).status == 200)
            google.toolkit.setUser("alice", validSince: Int(WallClock.now()))
            #expect(try await gateway.me(token: Self.token("alice", issuedAt: issuedAt)).status == 200)  // cached
            let denied = try await gateway.request(
                "POST", "/admin/v1/revocations", headers: [("Authorization", "Bearer not-it"), ("Content-Type", "application/json")],
                body: Array(#"{"uid":"alice"}"#.utf8)
            )
            #expect(denied.status == 401)
            let dropped = try await gateway.request(
                "POST", "/admin/v1/revocations", headers: [("Authorization", "Bearer " + Self.adminSecret), ("Content-Type", "application/json")],
                body: Array(#"{"uid":"alice"}"#.utf8)
            )
            #expect(dropped.status == 200)
            let revoked = try await gateway.me(token: Self.token("alice", issuedAt: issuedAt))
            #expect(revoked.status == 403)
            #expect(revoked.errorCode == "TOKEN_REVOKED")
        }
    }

    @Test func withoutAnAdminTokenTheRouteDoesNotExist() async throws {
        try await Self.run(configure: { configuration, _ in configuration.adminToken = nil }) { gateway, _ in
            let response = try await gateway.request(
                "POST", "/admin/v1/revocations", headers: [("Authorization", "Bearer " + Self.adminSecret)], body: Array(#"{"uid":"a"}"#.utf8)
            )
            #expect(response.status == 404)
        }
    }

    @Test func googleUnreachableClosedIs503AndOpenPasses() async throws {
        let port = try refusingLoopbackPort()
        try await Self.run(configure: { configuration, _ in
            configuration.revocation.identityToolkitURL = "http://127.0.0.1:\(port)"
            configuration.revocation.failurePolicy = .closed
        }) { gateway, _ in
            let response = try await gateway.me(token: Self.token("someone", issuedAt: WallClock.now() - 5))
            #expect(response.status == 503)
            #expect(response.errorCode == "UNAVAILABLE")
            #expect(response.header("Retry-After") == "5")
        }
        try await Self.run(configure: { configuration, _ in
            configuration.revocation.identityToolkitURL = "http://127.0.0.1:\(port)"
            configuration.revocation.failurePolicy = .open
        }) { gateway, _ in
            #expect(try await gateway.me(token: Self.token("someone", issuedAt: WallClock.now() - 5)).status == 200)
            let metrics = try await gateway.settledMetrics()
            #expect(metrics.contains("storygate_revocation_lookups_total{result=\"unreachable\"} 1"))
            #expect(metrics.contains("storygate_revocation_stale_verdicts_total{policy=\"open\"} 1"))
        }
    }

    @Test func aProxiedRouteIsChecked() async throws {
        try await withLocalHTTPServer({ _ in .text("upstream") }) { upstream in
            try await Self.run(configure: { configuration, _ in
                configuration.routes.append(
                    RouteConfiguration(path: .prefix("/api/"), target: .upstream(UpstreamURL(upstream.baseURL + "/base")!), auth: .required)
                )
            }) { gateway, google in
                let issuedAt = WallClock.now() - 60
                google.toolkit.setUser("fine")
                google.toolkit.setUser("gone-away", validSince: Int(issuedAt) + 1)
                for _ in 0..<2 {
                    let fine = try await gateway.get("/api/x", headers: [("Authorization", "Bearer " + Self.token("fine", issuedAt: issuedAt))])
                    #expect(fine.status == 200)
                    #expect(fine.text == "upstream")
                    let revoked = try await gateway.get("/api/x", headers: [("Authorization", "Bearer " + Self.token("gone-away", issuedAt: issuedAt))])
                    #expect(revoked.status == 403)
                    #expect(revoked.errorCode == "TOKEN_REVOKED")
                }
                #expect(upstream.requestCount == 2)
                #expect(google.toolkit.lookups(of: "fine") == 1)
                #expect(google.toolkit.lookups(of: "gone-away") == 1)
            }
        }
    }

    @Test func theAdminRouteOnOneGatewayDropsTheStateOnAnother() async throws {
        try await withRedisServer { redis in
            try await withShutdown(try await LocalOAuthServer.start()) { oauth in
                try await withShutdown(try await LocalIdentityToolkit.start(oauth: oauth)) { toolkit in
                    let path = FileManager.default.temporaryDirectory.appendingPathComponent("storygate-sa-\(UUID().uuidString).json").path
                    try TestServiceAccount.json(tokenURI: oauth.tokenURI).write(toFile: path, atomically: true, encoding: .utf8)
                    defer { try? FileManager.default.removeItem(atPath: path) }
                    let configure: @Sendable (inout GatewayConfiguration) -> Void = { configuration in
                        configuration.revocation.check = .on
                        configuration.googleCredentialsFile = path
                        configuration.revocation.identityToolkitURL = toolkit.baseURL
                        configuration.adminToken = Secret(Self.adminSecret)
                        configuration.redisURL = redis.url
                    }
                    let issuedAt = WallClock.now() - 60
                    toolkit.setUser("dave")
                    try await GatewayHarness.run(configure: configure) { a in
                        try await GatewayHarness.run(configure: configure) { b in
                            await a.application.revocation?.sharing?.waitUntilSubscribed()
                            await b.application.revocation?.sharing?.waitUntilSubscribed()
                            #expect(try await b.me(token: Self.token("dave", issuedAt: issuedAt)).status == 200)
                            #expect(try await a.me(token: Self.token("dave", issuedAt: issuedAt)).status == 200)
                            #expect(toolkit.lookups(of: "dave") == 1)  // A took B's state from Redis
                            toolkit.setUser("dave", validSince: Int(WallClock.now()))
                            let dropped = try await a.request(
                                "POST", "/admin/v1/revocations",
                                headers: [("Authorization", "Bearer " + Self.adminSecret), ("Content-Type", "application/json")],
                                body: Array(#"{"uid":"dave"}"#.utf8)
                            )
                            #expect(dropped.status == 200)
                            let checker = try #require(b.application.revocation?.checker)
                            #expect(try await RevocationSharingTests.eventually { checker.cachedState(uid: "dave") == nil })
                            let refused = try await b.me(token: Self.token("dave", issuedAt: issuedAt))
                            #expect(refused.status == 403)
                            #expect(refused.errorCode == "TOKEN_REVOKED")
                        }
                    }
                }
            }
        }
    }
}
