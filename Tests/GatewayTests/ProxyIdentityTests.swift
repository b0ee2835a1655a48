import CurlHTTP
import Gateway
import GatewayConfig
import IDTokens
import Testing
import TestSupport

/// Identity assertions coming in: a gateway with the shared key accepts another gateway's assertion as the
/// caller's identity when there is no `Authorization` header; an invalid one is a 401.
@Suite("Proxy identity assertions")
struct ProxyIdentityTests {
    static func withKey(_ configuration: inout GatewayConfiguration) {
        configuration.proxy.assertionSecret = Secret(ProxyFixture.secretText)
    }

    static func assertion(uid: String = "alice", key: IdentityAssertionKey = ProxyFixture.key, age: Double = 0) -> String {
        IdentityAssertion.sign(uid: uid, requestID: "edge-1", now: WallClock.now() - age, key: key)
    }

    @Test("a valid assertion is an identity (source assertion)")
    func accepted() async throws {
        try await GatewayHarness.run(configure: Self.withKey) { gateway in
            let response = try await gateway.get("/v1/me", headers: [("X-StoryGate-Identity", Self.assertion(uid: "alice"))])
            #expect(response.status == 200)
            #expect(response.json["uid"] as? String == "alice")
            #expect(response.json["source"] as? String == "assertion")
        }
    }

    @Test("another key, an expired or malformed assertion, or two of them: 401")
    func rejected() async throws {
        try await GatewayHarness.run(configure: Self.withKey) { gateway in
            let cases: [[(String, String)]] = [
                [("X-StoryGate-Identity", Self.assertion(key: ProxyFixture.otherKey))],
                [("X-StoryGate-Identity", Self.assertion(age: 600))],
                [("X-StoryGate-Identity", "v1.not-an-assertion")],
                [("X-StoryGate-Identity", Self.assertion()), ("X-StoryGate-Identity", Self.assertion())],
            ]
            for headers in cases {
                let response = try await gateway.get("/v1/me", headers: headers)
                #expect(response.status == 401)
                #expect(response.errorCode == "UNAUTHENTICATED")
                #expect(response.header("www-authenticate")?.contains("invalid_token") == true)
            }
        }
    }

    @Test("a bearer token wins over an assertion")
    func bearerWins() async throws {
        try await GatewayHarness.run(configure: Self.withKey) { gateway in
            let response = try await gateway.get(
                "/v1/me",
                headers: [("Authorization", "Bearer " + ProxyFixture.token(uid: "bob")), ("X-StoryGate-Identity", Self.assertion(uid: "alice"))]
            )
            #expect(response.status == 200)
            #expect(response.json["uid"] as? String == "bob")
            #expect(response.json["source"] as? String == "firebase")
        }
    }

    @Test("without a key an assertion is no credential")
    func ignoredWithoutKey() async throws {
        try await GatewayHarness.run { gateway in
            let response = try await gateway.get("/v1/me", headers: [("X-StoryGate-Identity", Self.assertion())])
            #expect(response.status == 401)
            #expect(response.header("www-authenticate") == "Bearer realm=\"storygate\"")
        }
    }

    /// An edge gateway whose `/inner/` route forwards to an inner gateway's `/v1`, both with the key.
    static func runChain(edgeAccepts: Bool = true, _ body: @escaping @Sendable (_ edge: GatewayHarness, _ inner: GatewayHarness) async throws -> Void) async throws {
        try await GatewayHarness.run(configure: Self.withKey) { inner in
            try await GatewayHarness.run(configure: { configuration in
                Self.withKey(&configuration)
                configuration.proxy.acceptAssertions = edgeAccepts
                configuration.routes.append(
                    RouteConfiguration(
                        path: .prefix("/inner/"), target: .upstream(UpstreamURL("http://127.0.0.1:\(inner.port)/v1")!), auth: .required
                    )
                )
            }) { edge in
                try await body(edge, inner)
            }
        }
    }

    @Test("a StoryGate behind a StoryGate: the edge verifies the token, the inner one trusts the edge's assertion")
    func chain() async throws {
        try await Self.runChain { edge, inner in
            let response = try await edge.get("/inner/me", headers: [("Authorization", "Bearer " + ProxyFixture.token(uid: "carol"))])
            #expect(response.status == 200)
            #expect(response.json["uid"] as? String == "carol")
            #expect(response.json["source"] as? String == "assertion")
            // Straight to the inner gateway with a forged X-User-Id: refused.
            let direct = try await inner.get("/v1/me", headers: [("X-User-Id", "carol")])
            #expect(direct.status == 401)
        }
    }

    @Test("an edge with accept: false signs assertions for the gateway behind it but takes none itself")
    func edgeDoesNotAccept() async throws {
        try await Self.runChain(edgeAccepts: false) { edge, _ in
            let chained = try await edge.get("/inner/me", headers: [("Authorization", "Bearer " + ProxyFixture.token(uid: "carol"))])
            #expect(chained.status == 200)
            #expect(chained.json["source"] as? String == "assertion")
            // An assertion replayed to the edge is no credential there.
            for path in ["/v1/me", "/inner/me"] {
                let replayed = try await edge.get(path, headers: [("X-StoryGate-Identity", Self.assertion(uid: "carol"))])
                #expect(replayed.status == 401, "\(path)")
                #expect(replayed.header("www-authenticate") == "Bearer realm=\"storygate\"", "\(path)")
            }
        }
    }

    @Test("a secret shorter than 32 bytes stops start-up")
    func shortSecret() throws {
        var configuration = GatewayConfiguration()
        configuration.firebaseProjectID = TestKeys.projectID
        configuration.openAIAPIKey = Secret("sk-test")
        configuration.proxy.assertionSecret = Secret("too-short")
        #expect(throws: ConfigurationError.self) {
            _ = try GatewayApplication(configuration: configuration, logger: GatewayHarness.logger)
        }
    }

    @Test("identity_assertion.max_age_seconds bounds how old an accepted assertion may be")
    func configuredMaxAge() async throws {
        try await GatewayHarness.run(configure: { configuration in
            Self.withKey(&configuration)
            configuration.proxy.assertionMaxAgeSeconds = 10
        }) { gateway in
            let fresh = try await gateway.get("/v1/me", headers: [("X-StoryGate-Identity", Self.assertion(age: 5))])
            #expect(fresh.status == 200)
            // Within the default minute, but older than the configured ten seconds.
            let stale = try await gateway.get("/v1/me", headers: [("X-StoryGate-Identity", Self.assertion(age: 30))])
            #expect(stale.status == 401)
            #expect(stale.errorCode == "UNAUTHENTICATED")
        }
    }
}
