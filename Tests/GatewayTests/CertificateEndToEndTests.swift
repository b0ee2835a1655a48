import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import IDTokens
import Testing
import TestSupport

/// Certificate fetching through libcurl from a local x509 server: Cache-Control, rotation, cooldown, outages.
@Suite("Certificates end to end")
struct CertificateEndToEndTests {
    let minter = TokenMinter(key: TestKeys.primary, keyID: TestKeys.primaryKeyID)

    /// Short backoffs so recovery happens within a bounded poll.
    static let fastRetry: CertificateRefreshPolicy = {
        var policy = CertificateRefreshPolicy()
        policy.initialBackoff = 0.05
        policy.maximumBackoff = 0.1
        return policy
    }()

    @Test("Cache-Control max-age sets the lifetime of the set")
    func cacheControl() async throws {
        let endpoint = CertificateEndpoint()
        endpoint.update { $0.cacheControl = "public, max-age=1234, must-revalidate, no-transform" }
        try await GatewayHarness.run(certificates: endpoint) { gateway in
            let state = gateway.application.certificateStores[0].refreshState
            let fetchedAt = try #require(state.fetchedAt)
            #expect(state.expiresAt - fetchedAt == 1234)
            #expect(abs(state.nextRefreshAt - fetchedAt - 1234 * state.policy.refreshFraction) < 0.01)
            #expect(endpoint.fetches == 1)
        }
    }

    @Test("cert server down at start: not ready, bearer requests 503 UNAVAILABLE; ready once it recovers")
    func downAtStart() async throws {
        let endpoint = CertificateEndpoint()
        endpoint.update { $0.failing = true }
        try await GatewayHarness.run(certificates: endpoint, policy: Self.fastRetry, waitUntilReady: false) { gateway in
            let ready = try await gateway.get("/readyz")
            #expect(ready.status == 503)
            #expect(ready.errorCode == "UNAVAILABLE")
            let token = self.minter.mint(uid: "alice", projectID: TestKeys.projectID, now: WallClock.now())
            let refused = try await gateway.me(token: token)
            #expect(refused.status == 503)
            #expect(refused.errorCode == "UNAVAILABLE")
            #expect(refused.header("retry-after") != nil)

            endpoint.update { $0.failing = false }
            try await gateway.waitUntilReady()
            #expect(try await gateway.me(token: token).status == 200)
        }
    }

    @Test("cert server down after start: the cached set keeps serving (stale-if-error) and the failure is counted")
    func downAfterStart() async throws {
        let endpoint = CertificateEndpoint()
        try await GatewayHarness.run(certificates: endpoint) { (gateway: GatewayHarness) async throws in
            let store = gateway.application.certificateStores[0]
            endpoint.update { $0.failing = true }
            await store.refresh()
            #expect(store.fetchCounters == .init(succeeded: 1, failed: 1))
            #expect(store.refreshState.consecutiveFailures == 1)
            #expect(try await gateway.get("/readyz").status == 200)
            let token = self.minter.mint(uid: "alice", projectID: TestKeys.projectID, now: WallClock.now())
            #expect(try await gateway.me(token: token).status == 200)
        }
    }

    @Test("a rotated-in key is picked up by one refetch on its unknown kid")
    func rotation() async throws {
        let endpoint = CertificateEndpoint()
        try await GatewayHarness.run(certificates: endpoint) { gateway in
            #expect(endpoint.fetches == 1)
            endpoint.update {
                $0.keys["rotated-kid"] = TestKeys.other.selfSignedCertificatePEM(commonName: "rotated")
            }
            let token = TokenMinter(key: TestKeys.other, keyID: "rotated-kid").mint(uid: "carol", projectID: TestKeys.projectID, now: WallClock.now())
            let response = try await gateway.me(token: token)
            #expect(response.status == 200)
            #expect(response.json["uid"] as? String == "carol")
            #expect(endpoint.fetches == 2)
            // the old key still works
            #expect(try await gateway.me(token: self.minter.mint(uid: "alice", projectID: TestKeys.projectID, now: WallClock.now())).status == 200)
        }
    }

    @Test("a flood of random kids causes at most one refetch (single flight and cooldown)")
    func unknownKidFlood() async throws {
        let endpoint = CertificateEndpoint()
        // The per-address failure guard would turn most of these into 429s before any fetch: off here.
        try await GatewayHarness.run(certificates: endpoint, configure: { $0.authFailureLimit = nil }) { gateway in
            let now = WallClock.now()
            let tokens = (0..<64).map { TokenMinter(key: TestKeys.primary, keyID: "random-\($0)").mint(uid: "u\($0)", projectID: TestKeys.projectID, now: now) }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for token in tokens { group.addTask { try await gateway.me(token: token).status } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 401 })
            #expect(endpoint.fetches <= 2)
            // and later unknown kids within the cooldown fetch nothing more
            let before = endpoint.fetches
            #expect(try await gateway.me(token: tokens[0]).status == 401)
            #expect(endpoint.fetches == before)
        }
    }

    @Test("a refetch that still lacks the kid leaves the token rejected")
    func refetchWithoutKey() async throws {
        try await GatewayHarness.run { gateway in
            let token = TokenMinter(key: TestKeys.primary, keyID: "never-published").mint(uid: "x", projectID: TestKeys.projectID, now: WallClock.now())
            let response = try await gateway.me(token: token)
            #expect(response.status == 401)
            #expect(response.errorMessage?.lowercased().contains("key") == true)
        }
    }
}
