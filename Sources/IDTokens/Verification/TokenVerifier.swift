/// Verifies Firebase ID tokens for a fixed set of trusted projects.
///
/// The order puts cheap checks before RSA, so floods of junk cost no RSA operation: decode (structure,
/// base64url, JSON) → header rules → the trusted project whose id equals `aud` → claim rules → key lookup →
/// RS256 signature.
public struct TokenVerifier: Sendable {
    /// The trusted projects, selected by `aud`.
    public let projects: [FirebaseClaimRules]

    /// A verifier trusting `projects`; a token is checked against the one whose id equals its `aud`.
    public init(projects: [FirebaseClaimRules]) {
        self.projects = projects
    }

    /// Decode, rules, key lookup, signature. `keys(projectID)` returns that project's current key set or nil
    /// when none was ever loaded. `now` is seconds since the Unix epoch.
    public func verify(
        _ token: some StringProtocol, now: Double, keys: (String) -> KeySet?
    ) throws(TokenVerificationError) -> VerifiedToken {
        let verified = token.utf8.withContiguousStorageIfAvailable { verify(utf8: $0, now: now, keys: keys) }
            ?? Array(token.utf8).withUnsafeBufferPointer { verify(utf8: $0, now: now, keys: keys) }
        return try verified.get()
    }

    /// `verify` over the token's UTF-8, which the signature check hashes in place (no copy of it is kept).
    private func verify(
        utf8 token: UnsafeBufferPointer<UInt8>, now: Double, keys: (String) -> KeySet?
    ) -> Result<VerifiedToken, TokenVerificationError> {
        do throws(TokenVerificationError) {
            let decoded = try DecodedToken(compactUTF8: token, storingSigningInput: false)
            try FirebaseClaimRules.checkHeader(decoded)
            guard let rules = projects.first(where: { decoded.stringEquals(decoded.slots.aud, $0.projectIDBytes) })
            else { throw TokenVerificationError.wrongAudience }
            let claims = try rules.checkClaims(decoded, now: now)
            guard let keySet = keys(rules.projectID) else {
                throw .init(.keysUnavailable, "The signing keys for the token's project are not available.")
            }
            guard let key = decoded.withStringBytes(decoded.slots.kid, { keySet.key(keyID: $0) }) ?? nil else {
                throw .init(.unknownKey, "The token's kid does not name a current signing key.")
            }
            guard decoded.signatureIsValid(key: key, token: token) else { throw .init(.badSignature, "The token's signature is invalid.") }
            return .success(VerifiedToken(
                uid: decoded.subject ?? "",
                projectID: rules.projectID,
                expiresAt: claims.expiresAt,
                issuedAt: claims.issuedAt,
                authTime: claims.authTime,
                claimsBytes: decoded.storage, claimsRange: decoded.payloadRange
            ))
        } catch {
            return .failure(error)
        }
    }
}

extension DecodedToken {
    /// Whether the signature verifies under `key` over `token`'s signing input (`token` is the text this was
    /// decoded from).
    @inline(__always)
    func signatureIsValid(key: RSAPublicKey, token: UnsafeBufferPointer<UInt8>) -> Bool {
        storage.withUnsafeBufferPointer { buffer in
            key.key.verifyRS256(
                signature: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[signatureRange])),
                message: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: token[0..<signingInputCount]))
            )
        }
    }
}
