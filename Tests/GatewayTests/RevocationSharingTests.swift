import CurlHTTP
import Foundation
@testable import Gateway
@testable import GatewayConfig
import GoogleAuth
import IDTokens
import Logging
import RateLimiting
import Revocation
import ServiceLifecycle
import TestSupport
import Testing

/// Two replicas' revocation checks sharing states and drops through a real redis-server.
@Suite struct RevocationSharingTests {
    static func withTwoReplicas(
        _ body: @Sendable (GatewayRevocation, GatewayRevocation, LocalIdentityToolkit, RedisServer) async throws -> Void
    ) async throws {
        let curl = CurlClient(logger: GatewayHarness.logger)
        let run = Task { try await curl.run() }
        defer { run.cancel() }
        try await withRedisServer { redis in
            try await withShutdown(try await LocalOAuthServer.start()) { oauth in
                try await withShutdown(try await LocalIdentityToolkit.start(oauth: oauth)) { toolkit in
                    var configuration = GatewayConfiguration()
                    configuration.firebaseProjectID = TestKeys.projectID
                    configuration.revocation.check = .on
                    configuration.revocation.identityToolkitURL = toolkit.baseURL
                    configuration.redisURL = redis.url
                    let account = try ServiceAccount(json: Array(TestServiceAccount.json(tokenURI: oauth.tokenURI).utf8))
                    func replica() throws -> GatewayRevocation {
                        let tokens = ServiceAccountTokenSource(account: account, client: curl, logger: GatewayHarness.logger)
                        return try #require(
                            try GatewayRevocation.make(configuration: configuration, tokens: tokens, curl: curl, metrics: GatewayMetrics(), logger: GatewayHarness.logger)
                        )
                    }
                    let (a, b) = (try replica(), try replica())
                    let services = [a.sharing, b.sharing].compactMap { $0 as (any Service)? }
                    #expect(services.count == 2)
                    let group = ServiceGroup(services: services, logger: GatewayHarness.logger)
                    try await withThrowingTaskGroup(of: Void.self) { tasks in
                        tasks.addTask { try await group.run() }
                        await a.sharing?.waitUntilSubscribed()
                        await b.sharing?.waitUntilSubscribed()
                        do {
                            try await body(a, b, toolkit, redis)
                        } catch {
                            await group.triggerGracefulShutdown()
                            throw error
                        }
                        await group.triggerGracefulShutdown()
                        try await tasks.waitForAll()
                    }
                }
            }
        }
    }

    /// Waits (bounded) until `condition` holds: a drop crosses Redis asynchronously.
    static func eventually(limit: Int = 500, _ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<limit {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func aFleetLooksEachUserUpOncePerPeriod() async throws {
        try await Self.withTwoReplicas { a, b, toolkit, redis in
            toolkit.setUser("u", disabled: true)
            #expect(await a.checker.check(uid: "u", issuedAt: WallClock.now()) == .disabled)
            #expect(await b.checker.check(uid: "u", issuedAt: WallClock.now()) == .disabled)
            #expect(toolkit.lookups(of: "u") == 1)
            // The key is the uid's hash, with the state's remaining lifetime.
            let keys = try redis.cli("KEYS", "storygate:revocation:*")
            #expect(!keys.contains("\"u\"") && keys.contains("storygate:revocation:"), "\(keys)")
            let ttl = Int(try redis.cli("PTTL", keys.trimmingCharacters(in: .whitespacesAndNewlines)).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            #expect(ttl > 290_000 && ttl <= 300_000, "\(ttl)")
        }
    }

    @Test func theAdminRouteDropsTheStateOnAnotherReplica() async throws {
        try await Self.withTwoReplicas { a, b, toolkit, _ in
            toolkit.setUser("alice")
            let issuedAt = WallClock.now() - 60
            #expect(await a.checker.check(uid: "alice", issuedAt: issuedAt) == .allowed)
            #expect(await b.checker.check(uid: "alice", issuedAt: issuedAt) == .allowed)
            #expect(b.checker.cachedState(uid: "alice") != nil)
            toolkit.setUser("alice", validSince: Int(WallClock.now()))
            try await GatewayHarness.run(extraRoutes: [a.adminRoute(token: Secret(RevocationAdminRouteTests.adminSecret))]) { gateway in
                let response = try await RevocationAdminRouteTests.post(gateway, #"{"uid":"alice"}"#)
                #expect(response.status == 200)
            }
            #expect(try await Self.eventually { b.checker.cachedState(uid: "alice") == nil })
            #expect(await b.checker.check(uid: "alice", issuedAt: issuedAt) == .revoked)
            #expect(await a.checker.check(uid: "alice", issuedAt: issuedAt) == .revoked)
            #expect(toolkit.lookups(of: "alice") == 2)
        }
    }

    @Test func afterARedisRestartDropsReachTheOtherReplicaAgain() async throws {
        try await Self.withTwoReplicas { a, b, toolkit, redis in
            toolkit.setUser("carol")
            try await redis.restart()
            // Each round: B learns Carol's state, A drops it everywhere; once both of A's connection and B's
            // subscription are back, B forgets it.
            var reached = false
            for _ in 0..<300 where !reached {
                _ = await b.checker.check(uid: "carol", issuedAt: WallClock.now())
                guard b.checker.cachedState(uid: "carol") != nil else { continue }
                if (try? await a.checker.dropEverywhere(uids: ["carol"])) != nil {
                    reached = try await Self.eventually(limit: 20) { b.checker.cachedState(uid: "carol") == nil }
                }
                if !reached { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(reached)
        }
    }

    @Test func sharedStatesSurviveTheirEncoding() {
        for state in [
            CachedAccountState(state: .deleted, fetchedAt: 1_800_000_000.25),
            CachedAccountState(state: .active(disabled: true, validSince: nil), fetchedAt: 1_800_000_000),
            CachedAccountState(state: .active(disabled: false, validSince: 1_700_000_000), fetchedAt: 1_800_000_001.5),
        ] {
            #expect(RedisRevocationStates.decode(RedisRevocationStates.encode(state)) == state)
        }
        for bad in ["", "x deleted", "1 active", "1 active 2 -", "1 active 0 x", "1 gone", "1 deleted extra"] {
            #expect(RedisRevocationStates.decode(bad) == nil, "\(bad)")
        }
    }
}
