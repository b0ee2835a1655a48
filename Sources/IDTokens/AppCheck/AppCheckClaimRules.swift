/// The header and claim rules of Firebase App Check tokens for one project (the Admin SDK's
/// `appCheck().verifyToken`, and Google's rule for custom backends), without the signature. A pure value: the time
/// is an input.
///
/// Header: `alg` exactly `"RS256"`; `typ` exactly `"JWT"`; no `crit`; `kid` a non-empty string.
/// Claims: `iss` `https://firebaseappcheck.googleapis.com/<projectNumber>`; `aud` an array of strings holding both
/// `projects/<projectNumber>` and `projects/<projectID>`; `exp` a number with `now < exp + skew`; `iat` a number
/// with `iat <= now + skew`; `nbf`, when present, a number `<= now + skew`; `sub` (the app id) a non-empty string,
/// one of `appIDs` when that set is not empty.
public struct AppCheckClaimRules: Sendable {
    /// The Firebase project number (digits), in `iss` and `aud`.
    public let projectNumber: String
    /// The Firebase project id, in `aud`.
    public let projectID: String
    /// The only accepted `iss`.
    public let issuer: String
    /// The two entries `aud` must hold.
    public let audiences: [String]
    /// The accepted app ids (`sub`); empty accepts any.
    public let appIDs: Set<String>
    /// Allowed clock difference in seconds, 0...60.
    public let clockSkew: Double

    let issuerBytes: [UInt8]
    let audienceBytes: [[UInt8]]

    /// Rules for the project `projectNumber`/`projectID`; `clockSkew` (seconds) is clamped to 0...60, NaN counts as 0.
    public init(projectNumber: String, projectID: String, appIDs: Set<String> = [], clockSkew: Double) {
        self.projectNumber = projectNumber
        self.projectID = projectID
        self.issuer = "https://firebaseappcheck.googleapis.com/" + projectNumber
        self.audiences = ["projects/" + projectNumber, "projects/" + projectID]
        self.appIDs = appIDs
        self.clockSkew = clockSkew.isNaN ? 0 : min(max(clockSkew, 0), 60)
        self.issuerBytes = Array(self.issuer.utf8)
        self.audienceBytes = self.audiences.map { Array($0.utf8) }
    }

    /// Checks the header and claim rules at `now` (seconds since the Unix epoch); no signature check.
    public func check(_ token: DecodedToken, now: Double) throws(TokenVerificationError) -> AppCheckClaims {
        try Self.checkHeader(token)
        return try self.checkClaims(token, now: now)
    }

    static func checkHeader(_ token: DecodedToken) throws(TokenVerificationError) {
        guard token.stringEquals(token.slots.alg, Self.rs256) else {
            throw .init(.unsupportedAlgorithm, "The App Check token's alg is not RS256.")
        }
        guard token.headerParameter("typ") == .string("JWT") else {
            throw .init(.wrongType, "The App Check token's typ is not JWT.")
        }
        guard token.slots.crit == nil else {
            throw .malformed("The App Check token header has a crit parameter; no extensions are supported.")
        }
        guard let kid = token.slots.kid, token.members[kid].kind == .string,
              token.members[kid].valueEnd > token.members[kid].valueStart
        else {
            throw .init(.missingKeyID, "The App Check token header has no kid (a non-empty string).")
        }
    }

    private static let rs256 = Array("RS256".utf8)

    func checkClaims(_ token: DecodedToken, now: Double) throws(TokenVerificationError) -> AppCheckClaims {
        let slots = token.slots
        guard token.stringEquals(slots.iss, self.issuerBytes) else {
            throw .init(.wrongIssuer, "The App Check token's iss is not this project's App Check issuer.")
        }
        guard self.audienceHoldsBoth(token) else {
            throw .init(
                .wrongAudience, "The App Check token's aud must be an array holding both projects/<project number> and projects/<project id>."
            )
        }
        guard let expiresAt = token.number(slots.exp) else {
            throw .malformed("The App Check token's exp claim is missing or not a finite number.")
        }
        guard let issuedAt = token.number(slots.iat) else {
            throw .malformed("The App Check token's iat claim is missing or not a finite number.")
        }
        guard now < expiresAt + self.clockSkew else { throw .init(.expired, "The App Check token has expired.") }
        guard issuedAt <= now + self.clockSkew else { throw .init(.issuedInFuture, "The App Check token's iat is in the future.") }
        if slots.nbf != nil {
            guard let notBefore = token.number(slots.nbf) else {
                throw .malformed("The App Check token's nbf claim is not a finite number.")
            }
            guard notBefore <= now + self.clockSkew else { throw .init(.notYetValid, "The App Check token is not valid yet (nbf).") }
        }
        guard let appID = token.subject, !appID.isEmpty else {
            throw .init(.invalidSubject, "The App Check token's sub (the app id) must be a non-empty string.")
        }
        guard self.appIDs.isEmpty || self.appIDs.contains(appID) else {
            throw .init(.appNotAllowed, "The App Check token is for an app that is not allowed (APP_CHECK_APP_IDS).")
        }
        return AppCheckClaims(appID: appID, expiresAt: expiresAt, issuedAt: issuedAt)
    }

    /// Whether `aud` is an array of strings that holds both required audiences.
    private func audienceHoldsBoth(_ token: DecodedToken) -> Bool {
        guard let slot = token.slots.aud, token.members[slot].kind == .array else { return false }
        let member = token.members[slot]
        return token.storage.withUnsafeBufferPointer { buffer -> Bool in
            guard let elements = try? JSONParser.parseArray(buffer, range: Int(member.valueStart)..<Int(member.valueEnd)) else { return false }
            var found = [Bool](repeating: false, count: self.audienceBytes.count)
            for element in elements {
                guard element.kind == .string else { return false }
                let raw = UnsafeBufferPointer(rebasing: buffer[Int(element.valueStart)..<Int(element.valueEnd)])
                let value = element.valueHasEscapes ? JSONString.unescape(raw) : Array(raw)
                for (index, expected) in self.audienceBytes.enumerated() where value == expected { found[index] = true }
            }
            return found.allSatisfy { $0 }
        }
    }
}

/// The claims of an App Check token that passed the rules.
public struct AppCheckClaims: Sendable, Equatable {
    /// The Firebase app id (`sub`).
    public let appID: String
    /// `exp`, seconds since the Unix epoch.
    public let expiresAt: Double
    /// `iat`, seconds since the Unix epoch.
    public let issuedAt: Double
}
