import CurlHTTP
import IDTokens
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import TestSupport

@testable import Gateway

/// App Check's JWKS fetched through libcurl from a real local server: the same store as ID-token certificates,
/// reading `{"keys":[…]}`; Cache-Control lifetime; a rotated-in key picked up by one refetch.
@Suite("App Check JWKS over HTTP")
struct AppCheckJWKSServerTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    static let now: Double = 1_700_000_000

    /// A JWKS endpoint whose key list the test changes; counts fetches.
    final class JWKSEndpoint: Sendable {
        let keys: Mutex<[(keyID: String, key: RSAPrivateKey)]>
        let fetches = Mutex(0)
        /// Answer 503 while set.
        let failing = Mutex(false)

        init(_ keys: [(keyID: String, key: RSAPrivateKey)]) {
            self.keys = Mutex(keys)
        }

        func respond(to request: LocalRequest) -> LocalResponse {
            self.fetches.withLock { $0 += 1 }
            if self.failing.withLock({ $0 }) { return .text("unavailable", status: 503) }
            guard request.method == "GET", request.path == "/v1/jwks" else { return .text("not found", status: 404) }
            return LocalResponse(
                headers: [("Content-Type", "application/json"), ("Cache-Control", "public, max-age=21600")],
                body: TestKeys.appCheckJWKS(self.keys.withLock { $0 })
            )
        }
    }

    /// Runs `body` with an authenticator whose store fetches from a local JWKS server through libcurl.
    func withAuthenticator(
        _ endpoint: JWKSEndpoint, _ body: (AppCheckAuthenticator, CertificateStore) async throws -> Void
    ) async throws {
        try await withLocalHTTPServer({ endpoint.respond(to: $0) }) { server in
            let client = CurlClient(logger: Self.logger)
            let clientGroup = ServiceGroup(services: [client], logger: Self.logger)
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await clientGroup.run() }
                let store = CertificateStore(
                    projectID: "app-check", source: CurlCertificateSource(url: server.baseURL + "/v1/jwks", client: client), format: .jwks,
                    now: { Self.now }, logger: Self.logger
                )
                let authenticator = AppCheckAuthenticator(
                    rules: AppCheckClaimRules(projectNumber: TestKeys.projectNumber, projectID: TestKeys.projectID, clockSkew: 5),
                    keys: store, cache: TokenCache(capacity: 100), now: { Self.now }
                )
                do {
                    try await body(authenticator, store)
                } catch {
                    await clientGroup.triggerGracefulShutdown()
                    throw error
                }
                await clientGroup.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }

    @Test("the JWKS loads with its Cache-Control lifetime and verifies a token")
    func load() async throws {
        let endpoint = JWKSEndpoint([(TestKeys.primaryKeyID, TestKeys.primary)])
        try await self.withAuthenticator(endpoint) { authenticator, store in
            #expect(!authenticator.isReady)
            await store.refresh()
            #expect(authenticator.isReady)
            #expect(store.refreshState.expiresAt == Self.now + 21_600)
            let verified = try await authenticator.verify(Substring(TokenFactory().appCheckToken(now: Self.now)))
            #expect(verified.appID == TestKeys.appCheckAppID)
            #expect(endpoint.fetches.withLock { $0 } == 1)
        }
    }

    @Test("a rotated-in key: an unknown kid triggers one refetch, then the token verifies; a second unknown kid waits for the cooldown")
    func rotation() async throws {
        let endpoint = JWKSEndpoint([("old-key", TestKeys.other)])
        try await self.withAuthenticator(endpoint) { authenticator, store in
            await store.refresh()
            let token = Substring(TokenFactory().appCheckToken(now: Self.now))
            #expect(throws: TokenVerificationError.self) { try authenticator.verifyNow(token) }
            endpoint.keys.withLock { $0 = [("old-key", TestKeys.other), (TestKeys.primaryKeyID, TestKeys.primary)] }
            // Concurrent requests with the new kid share one refetch.
            let results = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 { group.addTask { (try? await authenticator.verify(token)) != nil } }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.allSatisfy { $0 })
            #expect(endpoint.fetches.withLock { $0 } == 2)
            let stranger = Substring(TokenFactory(key: TestKeys.other, keyID: "stranger").appCheckToken(now: Self.now))
            await #expect(throws: TokenVerificationError.self) { try await authenticator.verify(stranger) }
            #expect(endpoint.fetches.withLock { $0 } == 2)
        }
    }
}
