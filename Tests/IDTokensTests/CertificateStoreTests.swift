import Logging
import Synchronization
import Testing
import TestSupport

@testable import IDTokens

/// A certificate source served from memory, with a switch to fail and an optional delay to overlap fetches.
final class ScriptedCertificateSource: CertificateSource {
    struct State {
        var document = CertificateDocument(body: TestKeys.googleX509JSON([TestKeys.primaryKeyID: TestKeys.primaryCertificatePEM]), maxAge: 600)
        var failing = false
        var fetches = 0
    }

    struct Unavailable: Error {}

    let state = Mutex(State())
    let delay: Duration

    init(delay: Duration = .zero) {
        self.delay = delay
    }

    var description: String { "scripted" }
    var fetches: Int { self.state.withLock { $0.fetches } }

    func fetch() async throws -> CertificateDocument {
        let (document, failing) = self.state.withLock { state in
            state.fetches += 1
            return (state.document, state.failing)
        }
        if self.delay > .zero { try await Task.sleep(for: self.delay) }
        if failing { throw Unavailable() }
        return document
    }
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let value: Mutex<Double>
    init(_ start: Double) { self.value = Mutex(start) }
    func now() -> Double { self.value.withLock { $0 } }
    func advance(by seconds: Double) { self.value.withLock { $0 += seconds } }
}

@Suite("Certificate store: loading, single flight, cooldown, stale-if-error (injected time)")
struct CertificateStoreTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    @Test("nothing before the first fetch; the set and its lifetime after")
    func load() async {
        let clock = ManualClock(1000)
        let source = ScriptedCertificateSource()
        let store = CertificateStore(projectID: "p", source: source, now: clock.now, logger: Self.logger)
        #expect(store.keys == nil)
        await store.refresh()
        #expect(store.keys?.keyIDs == [TestKeys.primaryKeyID])
        #expect(store.refreshState.expiresAt == 1600)
        #expect(store.fetchCounters == .init(succeeded: 1, failed: 0))
    }

    @Test("concurrent refreshes share one fetch")
    func singleFlight() async {
        let source = ScriptedCertificateSource(delay: .milliseconds(300))
        let store = CertificateStore(projectID: "p", source: source, logger: Self.logger)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { await store.refresh() } }
        }
        #expect(source.fetches == 1)
        #expect(store.keys != nil)
    }

    @Test("unknown-kid refetches are limited by the cooldown")
    func cooldown() async {
        let clock = ManualClock(1000)
        let source = ScriptedCertificateSource()
        let store = CertificateStore(projectID: "p", source: source, now: clock.now, logger: Self.logger)
        await store.refresh()
        #expect(await store.refreshForUnknownKey())
        #expect(source.fetches == 2)
        clock.advance(by: 4)
        #expect(await !store.refreshForUnknownKey())
        #expect(source.fetches == 2)
        clock.advance(by: 1)
        #expect(await store.refreshForUnknownKey())
        #expect(source.fetches == 3)
    }

    @Test("unknown-kid refetch: every concurrent caller joins the one fetch (none finds the cooldown begun and no fetch)")
    func unknownKeySingleFlight() async {
        let source = ScriptedCertificateSource(delay: .milliseconds(200))
        let store = CertificateStore(projectID: "p", source: source, logger: Self.logger)
        await store.refresh()
        let joined = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 { group.addTask { await store.refreshForUnknownKey() } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(joined == 50)
        #expect(source.fetches == 2)
    }

    @Test("a fetched set that withdraws a key is reported; the same set, or one with a key more, is not")
    func keysRemoved() async {
        let source = ScriptedCertificateSource()
        let store = CertificateStore(projectID: "p", source: source, logger: Self.logger)
        let reported = Mutex(0)
        store.onKeysRemoved { reported.withLock { $0 += 1 } }
        let otherPEM = TestKeys.other.selfSignedCertificatePEM(commonName: "storygate test other")
        await store.refresh()
        await store.refresh()
        source.state.withLock {
            $0.document = CertificateDocument(body: TestKeys.googleX509JSON([TestKeys.primaryKeyID: TestKeys.primaryCertificatePEM, "other": otherPEM]), maxAge: 600)
        }
        await store.refresh()
        #expect(reported.withLock { $0 } == 0)
        source.state.withLock { $0.document = CertificateDocument(body: TestKeys.googleX509JSON(["other": otherPEM]), maxAge: 600) }
        await store.refresh()
        #expect(reported.withLock { $0 } == 1)
        #expect(store.keys?.keyIDs == ["other"])
    }

    @Test("a token verified with a key since withdrawn is not answered from the cache")
    func withdrawnKeyEmptiesTheCache() async throws {
        let source = ScriptedCertificateSource()
        let clock = ManualClock(1_700_000_000)
        let store = CertificateStore(projectID: TestKeys.projectID, source: source, now: clock.now, logger: Self.logger)
        let authenticator = IDTokenAuthenticator(
            projects: [TrustedProject(projectID: TestKeys.projectID, clockSkew: 0, certificates: store)],
            cache: TokenCache(capacity: 100), now: clock.now
        )
        await store.refresh()
        let token = Substring(TokenFactory().token(now: clock.now()))
        _ = try authenticator.verifyNow(token)
        #expect(authenticator.cached(token) != nil)
        let otherPEM = TestKeys.other.selfSignedCertificatePEM(commonName: "storygate test other")
        source.state.withLock { $0.document = CertificateDocument(body: TestKeys.googleX509JSON(["other": otherPEM]), maxAge: 600) }
        await store.refresh()
        #expect(authenticator.cached(token) == nil)
        #expect(throws: TokenVerificationError.self) { try authenticator.verifyNow(token) }
    }

    @Test("failed refreshes keep the last set until stale-if-error runs out")
    func staleIfError() async {
        let clock = ManualClock(0)
        let source = ScriptedCertificateSource()
        let store = CertificateStore(projectID: "p", source: source, now: clock.now, logger: Self.logger)
        await store.refresh()
        source.state.withLock { $0.failing = true }
        clock.advance(by: 700)  // past max-age 600
        await store.refresh()
        #expect(store.keys != nil)
        #expect(store.refreshState.isStale(now: clock.now()))
        #expect(store.fetchCounters == .init(succeeded: 1, failed: 1))
        clock.advance(by: store.refreshState.policy.staleIfError)
        #expect(store.keys == nil)
        source.state.withLock { $0.failing = false }
        await store.refresh()
        #expect(store.keys != nil)
    }

    @Test("a body that is not a certificate set counts as a failed fetch")
    func badBody() async {
        let source = ScriptedCertificateSource()
        source.state.withLock { $0.document = CertificateDocument(body: Array("<html>".utf8), maxAge: 60) }
        let store = CertificateStore(projectID: "p", source: source, logger: Self.logger)
        await store.refresh()
        #expect(store.keys == nil)
        #expect(store.fetchCounters.failed == 1)
    }

    @Test("the dev certificate file loads and never expires")
    func devFile() async throws {
        let path = GatewayPaths.repositoryRoot + "/certs/dev/certs.json"
        let store = CertificateStore(projectID: "storygate-dev", source: FileCertificateSource(path: path), logger: Self.logger)
        await store.refresh()
        #expect(store.keys?.keyIDs.count == 1)
        #expect(store.refreshState.expiresAt == .infinity)
    }
}

enum GatewayPaths {
    static let repositoryRoot: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }()
}
