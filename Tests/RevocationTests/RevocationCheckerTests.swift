import MetricsTestKit
import Revocation
import TestSupport
import Testing

@Suite struct RevocationCheckerTests {
    @Test func everyOutcomeAgainstIdentityToolkit() async throws {
        try await RevocationHarness.with { harness in
            let now = Int(harness.clock.now)
            harness.toolkit.setUser("fine")
            harness.toolkit.setUser("signed-out", validSince: now - 60)
            harness.toolkit.setUser("disabled", disabled: true)
            let checker = try harness.checker()
            #expect(await checker.check(uid: "fine", issuedAt: harness.clock.now - 600) == .allowed)
            #expect(await checker.check(uid: "signed-out", issuedAt: harness.clock.now - 61) == .revoked)
            #expect(await checker.check(uid: "signed-out", issuedAt: harness.clock.now - 60) == .allowed)  // signed in again at validSince
            #expect(await checker.check(uid: "disabled", issuedAt: harness.clock.now) == .disabled)
            #expect(await checker.check(uid: "deleted", issuedAt: harness.clock.now) == .deleted)
            #expect(harness.toolkit.rejections.isEmpty)
            #expect(harness.oauth.rejections.isEmpty)
            #expect(harness.oauth.issuedTokens.count == 1)
            #expect(harness.toolkit.lookups(of: "signed-out") == 1)
            #expect(try harness.metrics.expectCounter("storygate_revocation_lookups_total", [("result", "active")]).totalValue == 2)
            #expect(try harness.metrics.expectCounter("storygate_revocation_lookups_total", [("result", "disabled")]).totalValue == 1)
            #expect(try harness.metrics.expectCounter("storygate_revocation_lookups_total", [("result", "deleted")]).totalValue == 1)
            #expect(try harness.metrics.expectCounter("storygate_revocation_cache_hits_total").totalValue == 1)
            #expect(try harness.metrics.expectTimer("storygate_revocation_lookup_duration_seconds").values.count == 4)
        }
    }

    @Test func aCachedStateDecidesSynchronouslyUntilItsMaxAge() async throws {
        try await RevocationHarness.with { harness in
            harness.toolkit.setUser("u1")
            let checker = try harness.checker(RevocationSettings(maxAge: 120))
            let issuedAt = harness.clock.now
            #expect(checker.stateNow(uid: "u1", issuedAt: issuedAt, now: harness.clock.now) == .needsLookup)
            #expect(await checker.lookUp(uid: "u1", issuedAt: issuedAt) == .allowed)
            harness.clock.advance(by: 119)
            #expect(checker.stateNow(uid: "u1", issuedAt: issuedAt, now: harness.clock.now) == .decided(.allowed, stateAge: 119))
            // The user is signed out everywhere; the cached state still rules until it is 120 s old.
            harness.toolkit.setUser("u1", validSince: Int(harness.clock.now))
            harness.clock.advance(by: 1)
            #expect(checker.stateNow(uid: "u1", issuedAt: issuedAt, now: harness.clock.now) == .needsLookup)
            #expect(await checker.check(uid: "u1", issuedAt: issuedAt) == .revoked)
            #expect(harness.toolkit.lookups(of: "u1") == 2)
        }
    }

    @Test func oneLookupPerUserUnderAThousandConcurrentChecks() async throws {
        try await RevocationHarness.with { harness in
            harness.toolkit.setUser("busy")
            harness.toolkit.hold()
            let checker = try harness.checker()
            let issuedAt = harness.clock.now
            async let verdicts = withTaskGroup(of: RevocationVerdict.self) { group in
                for _ in 0..<1000 { group.addTask { await checker.check(uid: "busy", issuedAt: issuedAt) } }
                return await group.reduce(into: [RevocationVerdict]()) { $0.append($1) }
            }
            while harness.toolkit.requestCount == 0 { await Task.yield() }
            harness.toolkit.release()
            let all = await verdicts
            #expect(all.count == 1000)
            #expect(all.allSatisfy { $0 == .allowed })
            #expect(harness.toolkit.lookups(of: "busy") == 1)
            #expect(harness.toolkit.requestCount == 1)
        }
    }

    @Test func googleUnreachableWithTheOpenPolicy() async throws {
        try await RevocationHarness.with { harness in
            let port = try refusingLoopbackPort()
            harness.toolkit.setUser("known", validSince: Int(harness.clock.now) - 10)
            let working = try harness.checker(RevocationSettings(maxAge: 60, failurePolicy: .open, retryAfterFailure: 5))
            #expect(await working.check(uid: "known", issuedAt: harness.clock.now - 20) == .revoked)
            // The same cached state in a checker whose Google is unreachable.
            let checker = try harness.checker(RevocationSettings(maxAge: 60, failurePolicy: .open, retryAfterFailure: 5), toolkitURL: "http://127.0.0.1:\(port)")
            checker.store(try #require(working.cachedState(uid: "known")), uid: "known")
            harness.clock.advance(by: 3600)
            // The last known state, however old; a user never looked up passes.
            #expect(await checker.check(uid: "known", issuedAt: harness.clock.now - 7200) == .revoked)
            #expect(await checker.check(uid: "known", issuedAt: harness.clock.now) == .allowed)
            #expect(await checker.check(uid: "stranger", issuedAt: harness.clock.now) == .allowed)
            // Within the retry interval no new lookup is tried, and the verdict is synchronous.
            #expect(checker.stateNow(uid: "stranger", issuedAt: harness.clock.now, now: harness.clock.now + 1) == .decided(.allowed, stateAge: nil))
            #expect(try harness.metrics.expectCounter("storygate_revocation_lookups_total", [("result", "unreachable")]).totalValue == 2)
            #expect(try harness.metrics.expectCounter("storygate_revocation_stale_verdicts_total", [("policy", "open")]).totalValue >= 4)
            #expect(try #require(try harness.metrics.expectGauge("storygate_revocation_oldest_state_age_seconds").lastValue) >= 3600)
        }
    }

    @Test func googleUnreachableWithTheClosedPolicy() async throws {
        try await RevocationHarness.with { harness in
            harness.toolkit.setUser("known")
            let checker = try harness.checker(RevocationSettings(maxAge: 60, failurePolicy: .closed, retryAfterFailure: 5))
            #expect(await checker.check(uid: "known", issuedAt: harness.clock.now) == .allowed)
            harness.toolkit.failWith(status: 503)
            harness.clock.advance(by: 30)
            #expect(await checker.check(uid: "known", issuedAt: harness.clock.now) == .allowed)  // still fresh
            harness.clock.advance(by: 31)
            #expect(await checker.check(uid: "known", issuedAt: harness.clock.now) == .unavailable)
            #expect(await checker.check(uid: "stranger", issuedAt: harness.clock.now) == .unavailable)
            #expect(try harness.metrics.expectCounter("storygate_revocation_lookups_total", [("result", "refused")]).totalValue == 2)
            // Google is back: after the retry interval the next request looks up again.
            harness.toolkit.failWith(status: nil)
            harness.clock.advance(by: 5)
            #expect(await checker.check(uid: "known", issuedAt: harness.clock.now) == .allowed)
        }
    }

    @Test func noAccessTokenIsAFailedLookup() async throws {
        try await RevocationHarness.with { harness in
            harness.oauth.failWith(status: 500)
            harness.toolkit.setUser("u")
            let checker = try harness.checker(RevocationSettings(failurePolicy: .closed))
            #expect(await checker.check(uid: "u", issuedAt: harness.clock.now) == .unavailable)
            #expect(harness.toolkit.requestCount == 0)
            #expect(try harness.metrics.expectCounter("storygate_revocation_lookups_total", [("result", "credentials")]).totalValue == 1)
        }
    }

    @Test func aLookupOvertakenByADropStoresNothingAndItsWaitersLookUpAgain() async throws {
        try await RevocationHarness.with { harness in
            harness.toolkit.setUser("u")
            harness.toolkit.hold()
            let checker = try harness.checker(RevocationSettings(failurePolicy: .closed))
            let issuedAt = harness.clock.now - 10
            async let verdict = checker.check(uid: "u", issuedAt: issuedAt)
            while harness.toolkit.requestCount == 0 { await Task.yield() }
            // Signed out while the first lookup (which will answer the old state) is in flight.
            checker.drop(uids: ["u"])
            harness.toolkit.setUser("u", validSince: Int(harness.clock.now))
            harness.toolkit.release()
            #expect(await verdict == .revoked)
            #expect(harness.toolkit.lookups(of: "u") == 2)
            #expect(await checker.check(uid: "u", issuedAt: issuedAt) == .revoked)
            #expect(harness.toolkit.lookups(of: "u") == 2)
        }
    }

    @Test func aDropForgetsTheState() async throws {
        try await RevocationHarness.with { harness in
            harness.toolkit.setUser("u")
            let checker = try harness.checker()
            let issuedAt = harness.clock.now - 10
            #expect(await checker.check(uid: "u", issuedAt: issuedAt) == .allowed)
            harness.toolkit.setUser("u", validSince: Int(harness.clock.now))
            #expect(await checker.check(uid: "u", issuedAt: issuedAt) == .allowed)  // cached
            checker.drop(uids: ["u"])
            #expect(checker.cachedState(uid: "u") == nil)
            #expect(await checker.check(uid: "u", issuedAt: issuedAt) == .revoked)
            #expect(harness.toolkit.lookups(of: "u") == 2)
        }
    }
}
