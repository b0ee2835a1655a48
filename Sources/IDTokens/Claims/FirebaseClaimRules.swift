/// The header and claim rules of Firebase ID tokens for one project (Firebase Admin SDK `verifyIdToken`),
/// without the signature. A pure value: the time is an input.
///
/// Header: `alg` exactly `"RS256"`; no `crit`; `kid` a non-empty string.
/// Claims: `aud` the project id (a string; arrays are refused); `iss` `https://securetoken.google.com/<projectID>`;
/// `sub` a non-empty string of at most 128 Unicode scalars; `exp` a number with `now < exp + skew`;
/// `iat` a number with `iat <= now + skew`; `auth_time`, when present, a number `<= now + skew`;
/// `nbf`, when present, a number `<= now + skew`.
public struct FirebaseClaimRules: Sendable {
    /// The Firebase project id, the only accepted `aud`.
    public let projectID: String
    /// The only accepted `iss`.
    public let issuer: String
    /// Allowed clock difference in seconds, 0...60.
    public let clockSkew: Double

    let projectIDBytes: [UInt8]
    let issuerBytes: [UInt8]

    /// Rules for `projectID`; `clockSkew` (seconds) is clamped to 0...60, and NaN counts as 0.
    public init(projectID: String, clockSkew: Double) {
        self.projectID = projectID
        self.issuer = "https://securetoken.google.com/" + projectID
        self.clockSkew = clockSkew.isNaN ? 0 : min(max(clockSkew, 0), 60)
        self.projectIDBytes = Array(projectID.utf8)
        self.issuerBytes = Array(issuer.utf8)
    }

    /// Checks the header and claim rules at `now` (seconds since the Unix epoch); no signature check.
    public func check(_ token: DecodedToken, now: Double) throws(TokenVerificationError) {
        try Self.checkHeader(token)
        guard token.stringEquals(token.slots.aud, projectIDBytes) else {
            throw TokenVerificationError.wrongAudience
        }
        _ = try checkClaims(token, now: now)
    }

    /// The header rules, which do not depend on the project.
    static func checkHeader(_ token: DecodedToken) throws(TokenVerificationError) {
        guard token.stringEquals(token.slots.alg, rs256) else {
            throw .init(.unsupportedAlgorithm, "The token's alg is not RS256.")
        }
        guard token.slots.crit == nil else {
            throw .malformed("The token header has a crit parameter; no extensions are supported.")
        }
        guard let kid = token.slots.kid, token.members[kid].kind == .string,
              token.members[kid].valueEnd > token.members[kid].valueStart
        else {
            throw .init(.missingKeyID, "The token header has no kid (a non-empty string).")
        }
    }

    private static let rs256 = Array("RS256".utf8)

    /// The claim rules after `aud` was matched to this project; returns the values the verifier reports.
    func checkClaims(_ token: DecodedToken, now: Double) throws(TokenVerificationError) -> CheckedClaims {
        let slots = token.slots
        guard token.stringEquals(slots.iss, issuerBytes) else {
            throw .init(.wrongIssuer, "The token's iss does not match its project.")
        }
        guard let sub = slots.sub, token.members[sub].kind == .string else { throw TokenVerificationError.invalidSubject }
        let length = token.stringLength(sub)
        guard length.bytes > 0, length.scalars <= 128 else { throw TokenVerificationError.invalidSubject }
        guard let expiresAt = token.number(slots.exp) else {
            throw .malformed("The token's exp claim is missing or not a finite number.")
        }
        guard let issuedAt = token.number(slots.iat) else {
            throw .malformed("The token's iat claim is missing or not a finite number.")
        }
        guard now < expiresAt + clockSkew else { throw .init(.expired, "The token has expired.") }
        guard issuedAt <= now + clockSkew else { throw .init(.issuedInFuture, "The token's iat is in the future.") }
        var authTime: Double?
        if slots.authTime != nil {
            guard let value = token.number(slots.authTime) else {
                throw .malformed("The token's auth_time claim is not a finite number.")
            }
            guard value <= now + clockSkew else { throw .init(.authTimeInFuture, "The token's auth_time is in the future.") }
            authTime = value
        }
        if slots.nbf != nil {
            guard let notBefore = token.number(slots.nbf) else {
                throw .malformed("The token's nbf claim is not a finite number.")
            }
            guard notBefore <= now + clockSkew else { throw .init(.notYetValid, "The token is not valid yet (nbf).") }
        }
        return CheckedClaims(expiresAt: expiresAt, issuedAt: issuedAt, authTime: authTime)
    }
}

/// The time claims that passed the rules.
struct CheckedClaims: Sendable {
    let expiresAt: Double
    let issuedAt: Double
    let authTime: Double?
}

extension TokenVerificationError {
    static let wrongAudience = TokenVerificationError(.wrongAudience, "The token's aud is not a trusted Firebase project.")
    static let invalidSubject = TokenVerificationError(
        .invalidSubject, "The token's sub must be a non-empty string of at most 128 characters."
    )
}
