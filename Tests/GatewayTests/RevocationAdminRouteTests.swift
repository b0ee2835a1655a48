import CurlHTTP
import Gateway
import GatewayConfig
import GoogleAuth
import IDTokens
import Logging
import Revocation
import TestSupport
import Testing

/// `POST /admin/v1/revocations` through a real gateway, its checker looking users up at local Google stand-ins.
@Suite struct RevocationAdminRouteTests {
    static let adminSecret = "admin-secret-0123456789abcdef"

    /// A checker on local stand-ins, and a gateway serving its admin route.
    static func withAdminRoute(_ body: @Sendable (GatewayHarness, LocalIdentityToolkit, GatewayRevocation) async throws -> Void) async throws {
        let curl = CurlClient(logger: GatewayHarness.logger)
        let run = Task { try await curl.run() }
        defer { run.cancel() }
        try await withShutdown(try await LocalOAuthServer.start()) { oauth in
            try await withShutdown(try await LocalIdentityToolkit.start(oauth: oauth)) { toolkit in
                var configuration = GatewayConfiguration()
                configuration.firebaseProjectID = TestKeys.projectID
                configuration.revocation.check = .on
                configuration.revocation.identityToolkitURL = toolkit.baseURL
                let account = try ServiceAccount(json: Array(TestServiceAccount.json(tokenURI: oauth.tokenURI).utf8))
                let tokens = ServiceAccountTokenSource(account: account, client: curl, logger: GatewayHarness.logger)
                let revocation = try #require(
                    try GatewayRevocation.make(configuration: configuration, tokens: tokens, curl: curl, metrics: GatewayMetrics(), logger: GatewayHarness.logger)
                )
                try await GatewayHarness.run(extraRoutes: [revocation.adminRoute(token: Secret(Self.adminSecret))]) { gateway in
                    try await body(gateway, toolkit, revocation)
                }
            }
        }
    }

    static func post(_ gateway: GatewayHarness, _ body: String, authorization: String? = "Bearer " + adminSecret) async throws -> CurlResponse {
        var headers = [("Content-Type", "application/json")]
        if let authorization { headers.append(("Authorization", authorization)) }
        return try await gateway.request("POST", "/admin/v1/revocations", headers: headers, body: Array(body.utf8))
    }

    @Test func dropsTheCachedStateSoASignOutTakesEffectAtOnce() async throws {
        try await Self.withAdminRoute { gateway, toolkit, revocation in
            toolkit.setUser("alice")
            toolkit.setUser("bob")
            let issuedAt = WallClock.now() - 60
            #expect(await revocation.checker.check(uid: "alice", issuedAt: issuedAt) == .allowed)
            #expect(await revocation.checker.check(uid: "bob", issuedAt: issuedAt) == .allowed)
            // The app's backend revokes Alice's sessions, then tells the gateway.
            toolkit.setUser("alice", validSince: Int(WallClock.now()))
            #expect(await revocation.checker.check(uid: "alice", issuedAt: issuedAt) == .allowed)  // still cached
            let response = try await Self.post(gateway, #"{"uid":"alice"}"#)
            #expect(response.status == 200)
            #expect(response.json["dropped"] as? Int == 1)
            #expect(revocation.checker.cachedState(uid: "alice") == nil)
            #expect(revocation.checker.cachedState(uid: "bob") != nil)
            #expect(await revocation.checker.check(uid: "alice", issuedAt: issuedAt) == .revoked)
            let both = try await Self.post(gateway, #"{"uids":["alice","bob","alice"]}"#)
            #expect(both.status == 200)
            #expect(both.json["dropped"] as? Int == 2)
            #expect(revocation.checker.cachedState(uid: "bob") == nil)
        }
    }

    @Test func refusesAMissingOrWrongAdminToken() async throws {
        try await Self.withAdminRoute { gateway, _, _ in
            for authorization in [nil, "Bearer wrong", "Bearer " + Self.adminSecret + "x", "Basic " + Self.adminSecret, "Bearer"] {
                let response = try await Self.post(gateway, #"{"uid":"alice"}"#, authorization: authorization)
                #expect(response.status == 401, "\(authorization ?? "none")")
                #expect(response.errorCode == "UNAUTHENTICATED")
                #expect(!response.text.contains(Self.adminSecret))
            }
            let lowercase = try await Self.post(gateway, #"{"uid":"alice"}"#, authorization: "bearer " + Self.adminSecret)
            #expect(lowercase.status == 200)
        }
    }

    static let badBodies = [
        ("", "body_not_json_object"),
        ("[]", "body_not_json_object"),
        (#"{"uid":"a","uids":["b"]}"#, "body_fields"),
        (#"{"user":"a"}"#, "body_fields"),
        (#"{"uid":7}"#, "uid_type"),
        (#"{"uids":"a"}"#, "uids_type"),
        (#"{"uids":["a",1]}"#, "uids_type"),
        (#"{"uids":[]}"#, "uids_count"),
        (#"{"uid":""}"#, "uid_length"),
    ]

    @Test func refusesBadBodiesWithAStableCode() async throws {
        try await Self.withAdminRoute { gateway, _, _ in
            for (body, reason) in Self.badBodies {
                let response = try await Self.post(gateway, body)
                #expect(response.status == 400, "\(body)")
                #expect(response.errorCode == "INVALID_ARGUMENT")
                #expect(RevocationDropRequestReason.of(body) == reason, "\(body)")
            }
        }
    }

    @Test func otherMethodsAre405() async throws {
        try await Self.withAdminRoute { gateway, _, _ in
            let response = try await gateway.get("/admin/v1/revocations", headers: [("Authorization", "Bearer " + Self.adminSecret)])
            #expect(response.status == 405)
        }
    }
}

/// The reason label the parser gives a body (what the 400's log line and metric carry).
enum RevocationDropRequestReason {
    static func of(_ body: String) -> String? {
        do throws(RevocationDropRequest.Problem) {
            _ = try RevocationDropRequest.uids(from: Array(body.utf8))
            return nil
        } catch {
            return error.reason
        }
    }
}
