import Synchronization
import Testing
import TestSupport

@testable import IDTokens

@Suite("App Check: the token corpus, the rules and the verified-token cache")
struct AppCheckRulesTests {
    @Test("the corpus has at least 60 cases, each with a distinct name")
    func corpusSize() {
        #expect(AppCheckCorpus.cases.count >= 60)
        #expect(Set(AppCheckCorpus.cases.map(\.name)).count == AppCheckCorpus.cases.count)
    }

    @Test("each corpus token gets its verdict, and a refusal never quotes the token", arguments: AppCheckCorpus.cases)
    func corpus(_ testCase: AppCheckCase) {
        let token = testCase.build(AppCheckCorpus.factory)
        let verifier = AppCheckTokenVerifier(rules: testCase.restricted ? AppCheckCorpus.restrictedRules : AppCheckCorpus.rules)
        let keys = testCase.keyless ? nil : TestKeys.keySet
        do {
            let verified = try verifier.verify(token, now: AppCheckCorpus.now, keys: keys)
            #expect(testCase.expected == nil, "accepted; expected \(testCase.expected.map(\.rawValue) ?? "")")
            #expect(!verified.appID.isEmpty)
        } catch {
            #expect(error.reason == testCase.expected)
            #expect(error.message.contains("App Check") || error.reason == .malformed || error.reason == .tokenTooLarge)
            for part in token.split(separator: ".") where part.count >= 8 {
                #expect(!error.message.contains(part))
            }
        }
    }

    @Test("the claims of a valid token")
    func claims() throws {
        let verifier = AppCheckTokenVerifier(rules: AppCheckCorpus.rules)
        let verified = try verifier.verify(AppCheckCorpus.factory.appCheckToken(now: AppCheckCorpus.now), now: AppCheckCorpus.now, keys: TestKeys.keySet)
        #expect(verified == VerifiedAppCheckToken(appID: TestKeys.appCheckAppID, expiresAt: 1_700_003_600, issuedAt: 1_700_000_000))
        #expect(AppCheckCorpus.rules.issuer == "https://firebaseappcheck.googleapis.com/123456789012")
        #expect(AppCheckCorpus.rules.audiences == ["projects/123456789012", "projects/storygate-test"])
    }

    @Test("tokens from the App Check minter verify, and against a JWKS built from its key")
    func minted() throws {
        let minter = AppCheckTokenMinter(key: TestKeys.primary, keyID: "dev-app-check")
        let keys = try KeySet(jwks: Array(try minter.jwks().utf8))
        let token = minter.mint(appID: "1:5:web:aa", projectNumber: "5", projectID: "demo", now: 1_700_000_000.7, ttl: 60)
        let verifier = AppCheckTokenVerifier(rules: AppCheckClaimRules(projectNumber: "5", projectID: "demo", clockSkew: 0))
        let verified = try verifier.verify(token, now: 1_700_000_010, keys: keys)
        #expect(verified == VerifiedAppCheckToken(appID: "1:5:web:aa", expiresAt: 1_700_000_060, issuedAt: 1_700_000_000))
        #expect(throws: TokenVerificationError.self) { try verifier.verify(token, now: 1_700_000_061, keys: keys) }
    }

    @Test("the authenticator caches verified tokens in its own cache and refetches the JWKS once for an unknown kid")
    func authenticator() async throws {
        let clock = ManualClock(AppCheckCorpus.now)
        let source = ScriptedCertificateSource()
        source.state.withLock { $0.document = CertificateDocument(body: TestKeys.appCheckJWKS([("old", TestKeys.other)]), maxAge: 600) }
        let store = CertificateStore(projectID: "app-check", source: source, format: .jwks, now: clock.now, logger: CertificateStoreTests.logger)
        let cache = TokenCache(capacity: 100)
        let authenticator = AppCheckAuthenticator(rules: AppCheckCorpus.rules, keys: store, cache: cache, now: clock.now)
        #expect(!authenticator.isReady)
        await store.refresh()
        #expect(authenticator.isReady)
        let token = AppCheckCorpus.factory.appCheckToken(now: AppCheckCorpus.now)
        #expect(throws: TokenVerificationError.self) { try authenticator.verifyNow(Substring(token)) }
        // The key is rotated in at the source: the unknown kid triggers exactly one fetch.
        source.state.withLock {
            $0.document = CertificateDocument(body: TestKeys.appCheckJWKS([("old", TestKeys.other), (TestKeys.primaryKeyID, TestKeys.primary)]), maxAge: 600)
        }
        let verified = try await authenticator.verify(Substring(token))
        #expect(verified.appID == TestKeys.appCheckAppID)
        #expect(source.fetches == 2)
        #expect(cache.count == 1)
        #expect(authenticator.cached(Substring(token)) == verified)
        // A second unknown kid within the cooldown causes no fetch.
        let stranger = TokenFactory(key: TestKeys.other, keyID: "stranger").appCheckToken(now: AppCheckCorpus.now)
        await #expect(throws: TokenVerificationError.self) { try await authenticator.verify(Substring(stranger)) }
        #expect(source.fetches == 2)
        // A withdrawn key empties the cache.
        source.state.withLock { $0.document = CertificateDocument(body: TestKeys.appCheckJWKS([("old", TestKeys.other)]), maxAge: 600) }
        await store.refresh()
        #expect(cache.count == 0)
        #expect(authenticator.cached(Substring(token)) == nil)
    }
}
