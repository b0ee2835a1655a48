/// Verifies Firebase App Check tokens for one project: a pure function of the token, the time and the key set.
///
/// Cheap checks come before RSA, as for ID tokens: decode (structure, base64url, JSON) → header rules → claim
/// rules → key lookup → RS256 signature.
public struct AppCheckTokenVerifier: Sendable {
    public let rules: AppCheckClaimRules

    public init(rules: AppCheckClaimRules) {
        self.rules = rules
    }

    /// The token's claims, or the rule it broke. `keys` is App Check's current key set, nil when none was loaded.
    public func verify(_ token: some StringProtocol, now: Double, keys: KeySet?) throws(TokenVerificationError) -> VerifiedAppCheckToken {
        let verified = token.utf8.withContiguousStorageIfAvailable { self.verify(utf8: $0, now: now, keys: keys) }
            ?? Array(token.utf8).withUnsafeBufferPointer { self.verify(utf8: $0, now: now, keys: keys) }
        return try verified.get()
    }

    private func verify(utf8 token: UnsafeBufferPointer<UInt8>, now: Double, keys: KeySet?) -> Result<VerifiedAppCheckToken, TokenVerificationError> {
        do throws(TokenVerificationError) {
            let decoded = try DecodedToken(compactUTF8: token, storingSigningInput: false)
            try AppCheckClaimRules.checkHeader(decoded)
            let claims = try self.rules.checkClaims(decoded, now: now)
            guard let keys else {
                throw .init(.keysUnavailable, "The App Check signing keys are not available.")
            }
            guard let key = decoded.withStringBytes(decoded.slots.kid, { keys.key(keyID: $0) }) ?? nil else {
                throw .init(.unknownKey, "The App Check token's kid does not name a current App Check key.")
            }
            guard decoded.signatureIsValid(key: key, token: token) else {
                throw .init(.badSignature, "The App Check token's signature is invalid.")
            }
            return .success(VerifiedAppCheckToken(appID: claims.appID, expiresAt: claims.expiresAt, issuedAt: claims.issuedAt))
        } catch {
            return .failure(error)
        }
    }
}

/// An App Check token whose signature and claims were verified.
public struct VerifiedAppCheckToken: Sendable, Equatable {
    /// The Firebase app id (`sub`).
    public let appID: String
    /// `exp`, seconds since the Unix epoch.
    public let expiresAt: Double
    /// `iat`, seconds since the Unix epoch.
    public let issuedAt: Double

    public init(appID: String, expiresAt: Double, issuedAt: Double) {
        self.appID = appID
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
    }
}
