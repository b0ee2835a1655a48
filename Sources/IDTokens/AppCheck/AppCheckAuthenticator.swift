/// Verifies App Check tokens: the verified-token cache first, then the full rules and RS256 signature against the
/// App Check JWKS, refetching it once (single flight, cooldown) on an unknown `kid`.
///
/// The hot path (cache hit, or a known key) never suspends (`verifyNow`); only an unknown-kid refetch does.
public final class AppCheckAuthenticator: Sendable {
    public let verifier: AppCheckTokenVerifier
    /// App Check's key set (a `CertificateStore` in `.jwks` format).
    public let keys: CertificateStore
    /// Its own cache: an App Check token must never be found where ID tokens are looked up, nor the reverse.
    private let cache: TokenCache
    private let now: @Sendable () -> Double

    public init(rules: AppCheckClaimRules, keys: CertificateStore, cache: TokenCache, now: @escaping @Sendable () -> Double = WallClock.now) {
        self.verifier = AppCheckTokenVerifier(rules: rules)
        self.keys = keys
        self.cache = cache
        self.now = now
        keys.onKeysRemoved { [cache] in cache.removeAll() }
    }

    public var rules: AppCheckClaimRules { self.verifier.rules }

    /// Ready once the key set was loaded.
    public var isReady: Bool { self.keys.keys != nil }

    /// The token from the cache, if it is there and unexpired (no RSA work).
    public func cached(_ token: Substring) -> VerifiedAppCheckToken? {
        // The cache holds `VerifiedToken`s: for App Check, `uid` carries the app id.
        self.cache.lookup(token, now: self.now()).map { VerifiedAppCheckToken(appID: $0.uid, expiresAt: $0.expiresAt, issuedAt: $0.issuedAt) }
    }

    /// The verified token, or the rule it broke; suspends only to refetch the keys for an unknown `kid`.
    public func verify(_ token: Substring) async throws(TokenVerificationError) -> VerifiedAppCheckToken {
        do {
            return try self.verifyNow(token)
        } catch where error.reason == .unknownKey {
            // The key may have been rotated in since the last fetch: one refetch (or the cooldown), then one more try.
            _ = await self.keys.refreshForUnknownKey()
            return try self.verifyUncachedNow(token)
        }
    }

    /// `verify` without suspending: the cache, then the keys held now. An unknown key fails with `.unknownKey`,
    /// and `verify` is the way on.
    public func verifyNow(_ token: Substring) throws(TokenVerificationError) -> VerifiedAppCheckToken {
        if let cached = self.cached(token) { return cached }
        return try self.verifyUncachedNow(token)
    }

    private func verifyUncachedNow(_ token: Substring) throws(TokenVerificationError) -> VerifiedAppCheckToken {
        let now = self.now()
        let verified = try self.verifier.verify(token, now: now, keys: self.keys.keys)
        let entry = VerifiedToken(
            uid: verified.appID, projectID: self.rules.projectID, expiresAt: verified.expiresAt, issuedAt: verified.issuedAt,
            authTime: nil, claimsBytes: [], claimsRange: 0..<0
        )
        self.cache.insert(token, entry, now: now)
        return verified
    }
}
