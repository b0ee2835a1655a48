// TEMPORARY: signatures of the IDTokens core being built on branch wt-tokens; deleted at merge.
public struct TokenVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable, CaseIterable {
        case malformed, tokenTooLarge, unsupportedAlgorithm, missingKeyID, unknownKey, badSignature,
             expired, notYetValid, issuedInFuture, authTimeInFuture, wrongAudience, wrongIssuer,
             invalidSubject, keysUnavailable
    }
    public let reason: Reason
    public let message: String
    public var description: String { message }
}
public struct DecodedToken: Sendable {
    public init(compact token: some StringProtocol) throws(TokenVerificationError) { fatalError() }
    public var keyID: String? { nil }
    public var audience: String? { nil }
}
public struct FirebaseClaimRules: Sendable {
    public init(projectID: String, clockSkew: Double) {}
}
public final class RSAPublicKey: Sendable {}
public struct KeySetError: Error, Sendable, CustomStringConvertible { public var description: String { "" } }
public struct KeySet: Sendable {
    public init(googleX509JSON bytes: some Collection<UInt8>) throws(KeySetError) { fatalError() }
    public init(keys: [String: RSAPublicKey]) {}
    public subscript(keyID: String) -> RSAPublicKey? { nil }
    public var keyIDs: [String] { [] }
}
public struct VerifiedToken: Sendable, Equatable {
    public let uid: String, projectID: String, expiresAt: Double, issuedAt: Double, authTime: Double?
    public let claimsJSON: String
}
public struct TokenVerifier: Sendable {
    public init(projects: [FirebaseClaimRules]) {}
    public func verify(_ token: some StringProtocol, now: Double, keys: (String) -> KeySet?) throws(TokenVerificationError) -> VerifiedToken { fatalError() }
}
public final class TokenCache: Sendable {
    public init(capacity: Int, maxEntryLifetime: Double = 3600) {}
    public func lookup(_ token: some StringProtocol, now: Double) -> VerifiedToken? { nil }
    public func insert(_ token: some StringProtocol, _ verified: VerifiedToken, now: Double) {}
}
public struct RSAPrivateKey: Sendable {
    public init(pem: String) throws(KeySetError) { fatalError() }
}
public struct TokenMinter: Sendable {
    public init(key: RSAPrivateKey, keyID: String) {}
    public func mint(uid: String, projectID: String, now: Double, ttl: Double = 3600, extraClaims: [String: String] = [:]) -> String { "" }
}
