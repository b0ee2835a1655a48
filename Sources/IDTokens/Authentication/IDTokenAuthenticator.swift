/// Verifies Firebase ID tokens for a set of trusted projects: the verified-token cache first, then the full
/// rules and RS256 signature, refetching a project's certificates once (single flight, cooldown) on an unknown `kid`.
///
/// The hot path (cache hit, or a known key) never suspends (`verifyNow`); only an unknown-kid refetch does.
public final class IDTokenAuthenticator: Sendable {
    private let verifier: TokenVerifier
    private let projects: [String: CertificateStore]
    private let cache: TokenCache
    private let now: @Sendable () -> Double

    public init(projects: [TrustedProject], cache: TokenCache, now: @escaping @Sendable () -> Double = WallClock.now) {
        self.verifier = TokenVerifier(projects: projects.map(\.rules))
        self.projects = Dictionary(projects.map { ($0.projectID, $0.certificates) }, uniquingKeysWith: { first, _ in first })
        self.cache = cache
        self.now = now
        // A withdrawn key takes the tokens verified with it along: the cache is dropped whole (rare, and cheaper than
        // a key check on every hit).
        for store in self.projects.values { store.onKeysRemoved { [cache] in cache.removeAll() } }
    }

    /// The certificate stores, for readiness and metrics.
    public var certificateStores: [CertificateStore] { self.projects.keys.sorted().compactMap { self.projects[$0] } }

    /// Ready when every trusted project has a usable certificate set.
    public var isReady: Bool { self.projects.values.allSatisfy { $0.keys != nil } }

    /// The token from the verified-token cache, if it is there and unexpired (no RSA work).
    public func cached(_ token: Substring) -> VerifiedToken? {
        self.cache.lookup(token, now: self.now())
    }

    /// The verified token, or the rule it broke.
    public func verify(_ token: Substring) async throws(TokenVerificationError) -> VerifiedToken {
        if let cached = self.cached(token) {
            return cached
        }
        return try await self.verifyUncached(token)
    }

    /// Full verification of a token the caller already looked up in the cache and missed; the result is cached.
    public func verifyUncached(_ token: Substring) async throws(TokenVerificationError) -> VerifiedToken {
        do {
            return try self.verifyUncachedNow(token)
        } catch where error.reason == .unknownKey {
            // The key may have been rotated in since the last fetch: one refetch, then one more try.
            guard let audience = try? DecodedToken(compact: token).audience, let store = self.projects[audience] else { throw error }
            // Fetched, joined or held back by the cooldown: the set may hold the key now either way.
            _ = await store.refreshForUnknownKey()
            return try self.verifyUncachedNow(token)
        }
    }

    /// `verify` without suspending: the cache, then the certificates held now. A token signed with a key not held
    /// fails with `.unknownKey`, and `verifyUncached` is the way on (it refetches the certificates once).
    public func verifyNow(_ token: Substring) throws(TokenVerificationError) -> VerifiedToken {
        if let cached = self.cached(token) {
            return cached
        }
        return try self.verifyUncachedNow(token)
    }

    /// Full verification against the certificates held now (no refetch); the result is cached.
    public func verifyUncachedNow(_ token: Substring) throws(TokenVerificationError) -> VerifiedToken {
        let now = self.now()
        let verified = try self.verifier.verify(token, now: now, keys: self.keys(for:))
        self.cache.insert(token, verified, now: now)
        return verified
    }

    private func keys(for projectID: String) -> KeySet? {
        self.projects[projectID]?.keys
    }
}
