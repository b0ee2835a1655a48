import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import IDTokens
import Logging
import Synchronization
import Testing
import TestSupport

/// App Check through a real gateway on a real socket: the JWKS and the App Check API are local servers; every request
/// goes through the one rule pipeline (identity, App Check, rate limit).
@Suite("App Check end to end")
struct AppCheckEndToEndTests {
    typealias JWKSEndpoint = AppCheckJWKSServerTests.JWKSEndpoint

    enum Header: String, CaseIterable {
        case missing, bad, good
    }

    /// Runs `body` against a gateway with App Check in `mode`, its JWKS and API on local servers.
    func withGateway(
        mode: AppCheckSettings.Mode, jwks: JWKSEndpoint = JWKSEndpoint([(TestKeys.primaryKeyID, TestKeys.primary)]),
        waitUntilReady: Bool = true, accessLogger: Logger? = nil,
        meMode: AppCheckSettings.Mode? = nil, meConsumes: Bool = false,
        _ body: @Sendable (GatewayHarness, AppCheckAPIStandIn) async throws -> Void
    ) async throws {
        let standIn = AppCheckAPIStandIn()
        // A consuming route needs a service account to start; the injected access token stands in for its tokens.
        let credentials = FileManager.default.temporaryDirectory.appendingPathComponent("storygate-sa-\(UUID().uuidString).json").path
        try TestServiceAccount.json(tokenURI: "http://127.0.0.1:9/token").write(toFile: credentials, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: credentials) }
        try await withLocalHTTPServer({ jwks.respond(to: $0) }) { jwksServer in
            try await withLocalHTTPServer({ standIn.respond(to: $0) }) { apiServer in
                try await GatewayHarness.run(
                    configure: { configuration in
                        configuration.appCheck.mode = mode
                        configuration.appCheck.projectNumber = TestKeys.projectNumber
                        configuration.appCheck.jwksURL = jwksServer.baseURL + "/v1/jwks"
                        configuration.appCheck.apiURL = apiServer.baseURL
                        if meConsumes { configuration.googleCredentialsFile = credentials }
                        for index in configuration.routes.indices where configuration.routes[index].name == "me" {
                            configuration.routes[index].appCheck = meMode
                            configuration.routes[index].appCheckConsume = meConsumes
                        }
                    },
                    policy: CertificateEndEndPolicy.fastRetry, accessLogger: accessLogger, waitUntilReady: waitUntilReady,
                    googleAccessToken: { AppCheckAPIStandIn.accessToken }
                ) { gateway in
                    try await body(gateway, standIn)
                }
            }
        }
    }

    static func headers(_ header: Header, idToken: String = TokenFactory().token(now: WallClock.now())) -> [(String, String)] {
        var headers = [("Authorization", "Bearer " + idToken)]
        switch header {
        case .missing: break
        case .bad: headers.append(("X-Firebase-AppCheck", TokenFactory().appCheckToken(now: WallClock.now(), setting: ["aud": #"["projects/1"]"#])))
        case .good: headers.append(("X-Firebase-AppCheck", TokenFactory().appCheckToken(now: WallClock.now())))
        }
        return headers
    }

    @Test("header missing, bad or good under off, monitor and enforce", arguments: [AppCheckSettings.Mode.off, .monitor, .enforce])
    func matrix(_ mode: AppCheckSettings.Mode) async throws {
        try await self.withGateway(mode: mode) { gateway, _ in
            for header in Header.allCases {
                let response = try await gateway.get("/v1/me", headers: Self.headers(header))
                if mode == .enforce, header != .good {
                    #expect(response.status == 401, "\(header)")
                    #expect(response.errorCode == "APP_CHECK_FAILED", "\(header)")
                    #expect(response.header("www-authenticate") == nil)
                    let message = try #require(response.errorMessage)
                    #expect(message.contains(header == .missing ? "Missing App Check token" : "aud"), "\(message)")
                } else {
                    #expect(response.status == 200, "\(mode) \(header): \(response.text)")
                }
            }
            let metrics = try await gateway.admin("/metrics").text
            if mode == .off {
                #expect(!metrics.contains("storygate_app_check_results_total{"))
            } else {
                for outcome in ["valid", "missing", "wrong_audience"] {
                    #expect(metrics.contains(#"storygate_app_check_results_total{route="me",mode="\#(mode.rawValue)",outcome="\#(outcome)"} 1"#), "\(metrics)")
                }
            }
            // Routes with auth: none are not guarded by the gateway-wide mode.
            #expect(try await gateway.get("/healthz").status == 200)
        }
    }

    @Test("the ID token is checked first: a bad one is 401 UNAUTHENTICATED whatever the App Check token")
    func identityFirst() async throws {
        try await self.withGateway(mode: .enforce) { gateway, _ in
            let response = try await gateway.get("/v1/me", headers: Self.headers(.good, idToken: "not-a-token"))
            #expect(response.status == 401)
            #expect(response.errorCode == "UNAUTHENTICATED")
            // The two caches are apart: an App Check token just verified is no ID token, and the reverse.
            let appCheckToken = TokenFactory().appCheckToken(now: WallClock.now())
            let idToken = TokenFactory().token(now: WallClock.now())
            let verified = try await gateway.get("/v1/me", headers: [("Authorization", "Bearer " + idToken), ("X-Firebase-AppCheck", appCheckToken)])
            #expect(verified.status == 200)
            let swapped = try await gateway.get("/v1/me", headers: [("Authorization", "Bearer " + appCheckToken), ("X-Firebase-AppCheck", idToken)])
            #expect(swapped.status == 401)
            #expect(swapped.errorCode == "UNAUTHENTICATED")
            let appCheckAsIDToken = try await gateway.get("/v1/me", headers: [("Authorization", "Bearer " + idToken), ("X-Firebase-AppCheck", idToken)])
            #expect(appCheckAsIDToken.errorCode == "APP_CHECK_FAILED")
        }
    }

    @Test("a route's own app_check overrides the gateway's mode")
    func routeOverride() async throws {
        try await self.withGateway(mode: .off, meMode: .enforce) { gateway, _ in
            let missing = try await gateway.get("/v1/me", headers: Self.headers(.missing))
            #expect(missing.errorCode == "APP_CHECK_FAILED")
            let good = try await gateway.get("/v1/me", headers: Self.headers(.good))
            #expect(good.status == 200)
        }
    }

    @Test("consume: the first use passes, a replay is 401 APP_CHECK_REPLAYED (enforce) or let through (monitor)",
          arguments: [AppCheckSettings.Mode.monitor, .enforce])
    func consume(_ mode: AppCheckSettings.Mode) async throws {
        try await self.withGateway(mode: mode, meConsumes: true) { gateway, standIn in
            let headers = Self.headers(.good)
            #expect(try await gateway.get("/v1/me", headers: headers).status == 200)
            let replay = try await gateway.get("/v1/me", headers: headers)
            if mode == .enforce {
                #expect(replay.status == 401)
                #expect(replay.errorCode == "APP_CHECK_REPLAYED")
            } else {
                #expect(replay.status == 200)
            }
            #expect(try await gateway.get("/v1/me", headers: Self.headers(.good)).status == 200)
            #expect(standIn.calls.withLock { $0 } == 3)
            let metrics = try await gateway.admin("/metrics").text
            #expect(metrics.contains(#"storygate_app_check_results_total{route="me",mode="\#(mode.rawValue)",outcome="replayed"} 1"#))
            #expect(metrics.contains(#"storygate_app_check_results_total{route="me",mode="\#(mode.rawValue)",outcome="valid"} 2"#))
        }
    }

    @Test("consume with GOOGLE_APPLICATION_CREDENTIALS: the replay check gets the service account's access token")
    func consumeWithServiceAccount() async throws {
        try await withShutdown(try await LocalOAuthServer.start()) { oauth in
            try await withTemporaryFile(TestServiceAccount.json(tokenURI: oauth.tokenURI)) { credentials in
                // Google's API accepts only the tokens the (local) token endpoint issued for the service account.
                let standIn = AppCheckAPIStandIn(accepts: { oauth.issued($0) })
                let jwks = JWKSEndpoint([(TestKeys.primaryKeyID, TestKeys.primary)])
                try await withLocalHTTPServer({ jwks.respond(to: $0) }) { jwksServer in
                    try await withLocalHTTPServer({ standIn.respond(to: $0) }) { apiServer in
                        try await GatewayHarness.run(
                            configure: { configuration in
                                configuration.appCheck.mode = .enforce
                                configuration.appCheck.projectNumber = TestKeys.projectNumber
                                configuration.appCheck.jwksURL = jwksServer.baseURL + "/v1/jwks"
                                configuration.appCheck.apiURL = apiServer.baseURL
                                configuration.googleCredentialsFile = credentials
                                for index in configuration.routes.indices where configuration.routes[index].name == "me" {
                                    configuration.routes[index].appCheckConsume = true
                                }
                            },
                            policy: CertificateEndEndPolicy.fastRetry
                        ) { gateway in
                            let headers = Self.headers(.good)
                            #expect(try await gateway.get("/v1/me", headers: headers).status == 200)
                            let replay = try await gateway.get("/v1/me", headers: headers)
                            #expect(replay.errorCode == "APP_CHECK_REPLAYED")
                            #expect(standIn.calls.withLock { $0 } == 2)
                        }
                    }
                }
            }
        }
    }

    @Test("a route that consumes App Check tokens needs GOOGLE_APPLICATION_CREDENTIALS to start")
    func consumeNeedsCredentials() throws {
        var configuration = try GatewayConfiguration(yaml: nil, environment: ["ENV": "dev", "APP_CHECK": "enforce"])
        for index in configuration.routes.indices where configuration.routes[index].name == "me" {
            configuration.routes[index].appCheckConsume = true
        }
        #expect {
            try configuration.validateForStart()
        } throws: { error in
            "\(error)".contains("GOOGLE_APPLICATION_CREDENTIALS is required when route me consumes App Check tokens")
        }
    }

    @Test("/readyz waits for the JWKS; enforce answers 503 until it loads")
    func readiness() async throws {
        let jwks = JWKSEndpoint([(TestKeys.primaryKeyID, TestKeys.primary)])
        jwks.failing.withLock { $0 = true }
        try await self.withGateway(mode: .enforce, jwks: jwks, waitUntilReady: false) { gateway, _ in
            #expect(try await gateway.get("/readyz").status == 503)
            let early = try await gateway.get("/v1/me", headers: Self.headers(.good))
            #expect(early.status == 503)
            #expect(early.errorCode == "UNAVAILABLE")
            jwks.failing.withLock { $0 = false }
            try await gateway.waitUntilReady()
            #expect(try await gateway.get("/v1/me", headers: Self.headers(.good)).status == 200)
        }
    }

    @Test("a rotated-in App Check key is picked up by one JWKS refetch")
    func rotation() async throws {
        let jwks = JWKSEndpoint([("old", TestKeys.other)])
        try await self.withGateway(mode: .enforce, jwks: jwks) { gateway, _ in
            let fetches = jwks.fetches.withLock { $0 }
            jwks.keys.withLock { $0 = [("old", TestKeys.other), (TestKeys.primaryKeyID, TestKeys.primary)] }
            let response = try await gateway.get("/v1/me", headers: Self.headers(.good))
            #expect(response.status == 200)
            #expect(jwks.fetches.withLock { $0 } == fetches + 1)
        }
    }
}

extension AppCheckEndToEndTests {
    @Test("the access log carries the App Check outcome on routes with App Check on, and nothing elsewhere")
    func accessLog() async throws {
        let lines = Mutex<[String]>([])
        let accessLogger = Logger(label: "storygate.access") { label in
            JSONLogHandler(label: label, level: .info, sink: { line in lines.withLock { $0.append(line) } })
        }
        try await self.withGateway(mode: .monitor, accessLogger: accessLogger) { gateway, _ in
            for header in Header.allCases { _ = try await gateway.get("/v1/me", headers: Self.headers(header)) }
            _ = try await gateway.get("/healthz")
        }
        let objects = try lines.withLock { $0 }.filter { $0.contains("\"message\":\"request\"") && !$0.contains("\"/readyz\"") }.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.map { $0["app_check"] as? String } == ["missing", "wrong_audience", "valid", nil])
        #expect(objects.map { $0["status"] as? Int } == [200, 200, 200, 200])
    }
}


enum CertificateEndEndPolicy {
    /// Short backoffs, so a JWKS that recovers is fetched again within the harness's bounded wait.
    static let fastRetry: CertificateRefreshPolicy = {
        var policy = CertificateRefreshPolicy()
        policy.initialBackoff = 0.05
        policy.maximumBackoff = 0.1
        return policy
    }()
}
