import CurlHTTP
import GoogleAuth
import TestSupport
import Testing

@Suite struct ServiceAccountTokenSourceTests {
    @Test func fetchesATokenTheEndpointAcceptsAndCachesIt() async throws {
        try await withTokenEndpoint { server, client in
            let clock = ManualClock()
            let source = ServiceAccountTokenSource(
                account: try testAccount(tokenURI: server.tokenURI), client: client, logger: .googleAuthTests, now: { clock.now }
            )
            let first = try await source.accessToken()
            #expect(server.rejections.isEmpty)
            #expect(server.issued(first))
            clock.advance(by: 3000)
            #expect(try await source.accessToken() == first)
            #expect(server.requestCount == 1)
        }
    }

    @Test func anAssertionSignedWithAnotherKeyIsRefused() async throws {
        try await withTokenEndpoint { server, client in
            let source = ServiceAccountTokenSource(
                account: try testAccount(tokenURI: server.tokenURI, key: TestKeys.other), client: client, logger: .googleAuthTests
            )
            let error = await thrownError { try await source.accessToken() }
            #expect(error as? GoogleAuthError == .endpointRefused)
            #expect(server.rejections == ["signature"])
        }
    }

    @Test func concurrentCallersShareOneFetch() async throws {
        try await withTokenEndpoint { server, client in
            let source = ServiceAccountTokenSource(account: try testAccount(tokenURI: server.tokenURI), client: client, logger: .googleAuthTests)
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<200 { group.addTask { try await source.accessToken() } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)
            #expect(server.requestCount == 1)
        }
    }

    @Test func refreshesShortlyBeforeExpiry() async throws {
        try await withTokenEndpoint { server, client in
            server.setExpiresIn(600)  // refreshed 300 s (half its lifetime) before it expires
            let clock = ManualClock()
            let source = ServiceAccountTokenSource(
                account: try testAccount(tokenURI: server.tokenURI), client: client, logger: .googleAuthTests, now: { clock.now }
            )
            let first = try await source.accessToken()
            clock.advance(by: 299)
            #expect(try await source.accessToken() == first)
            #expect(server.requestCount == 1)
            // Due for a refresh: the valid token is handed out at once while one fetch replaces it.
            clock.advance(by: 2)
            #expect(try await source.accessToken() == first)
            #expect(try await source.accessToken() == first)
            // Once it has expired, a caller gets the new one (waiting for that fetch if it is still running).
            clock.advance(by: 300)
            let second = try await source.accessToken()
            #expect(second != first)
            #expect(server.issuedTokens == [first, second])
        }
    }

    @Test func backsOffAfterAServerErrorAndRecovers() async throws {
        try await withTokenEndpoint { server, client in
            let clock = ManualClock()
            let source = ServiceAccountTokenSource(
                account: try testAccount(tokenURI: server.tokenURI), client: client, logger: .googleAuthTests, now: { clock.now }
            )
            server.failWith(status: 503)
            #expect(await thrownError { try await source.accessToken() } as? GoogleAuthError == .endpointRefused)
            #expect(server.requestCount == 1)
            // Within the first backoff (1 s): no request, the last error again.
            clock.advance(by: 0.5)
            #expect(await thrownError { try await source.accessToken() } as? GoogleAuthError == .endpointRefused)
            #expect(server.requestCount == 1)
            clock.advance(by: 0.6)
            #expect(await thrownError { try await source.accessToken() } as? GoogleAuthError == .endpointRefused)
            #expect(server.requestCount == 2)
            // The second backoff is 2 s.
            server.failWith(status: nil)
            clock.advance(by: 1.5)
            #expect(await thrownError { try await source.accessToken() } as? GoogleAuthError == .endpointRefused)
            #expect(server.requestCount == 2)
            clock.advance(by: 0.6)
            let token = try await source.accessToken()
            #expect(server.issued(token))
            #expect(server.requestCount == 3)
        }
    }

    @Test func keepsServingAValidTokenWhileARefreshFails() async throws {
        try await withTokenEndpoint { server, client in
            server.setExpiresIn(600)
            let clock = ManualClock()
            let source = ServiceAccountTokenSource(
                account: try testAccount(tokenURI: server.tokenURI), client: client, logger: .googleAuthTests, now: { clock.now }
            )
            let first = try await source.accessToken()
            server.failWith(status: 500)
            clock.advance(by: 400)
            #expect(try await source.accessToken() == first)
            clock.advance(by: 201)  // expired, and the background refresh failed or is failing
            #expect(await thrownError { try await source.accessToken() } as? GoogleAuthError == .endpointRefused)
        }
    }

    @Test func anUnreachableEndpointIsReported() async throws {
        let port = try refusingLoopbackPort()
        try await withTokenEndpoint { _, client in
            let source = ServiceAccountTokenSource(
                account: try testAccount(tokenURI: "http://127.0.0.1:\(port)/token"), client: client, logger: .googleAuthTests
            )
            #expect(await thrownError { try await source.accessToken() } as? GoogleAuthError == .endpointUnreachable)
        }
    }
}
