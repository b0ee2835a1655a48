/// An ID token whose signature and claims were verified.
public struct VerifiedToken: Sendable, Equatable {
    /// The Firebase user id (`sub`).
    public let uid: String
    /// The project whose rules accepted it (`aud`).
    public let projectID: String
    /// `exp`, seconds since the Unix epoch.
    public let expiresAt: Double
    /// `iat`, seconds since the Unix epoch.
    public let issuedAt: Double
    /// `auth_time` when present.
    public let authTime: Double?
    /// The verified payload JSON object text, exactly as signed, to embed as-is in a response.
    public let claimsJSON: String

    public init(uid: String, projectID: String, expiresAt: Double, issuedAt: Double, authTime: Double?, claimsJSON: String) {
        self.uid = uid
        self.projectID = projectID
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.authTime = authTime
        self.claimsJSON = claimsJSON
    }
}
