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
    ///
    /// Made when read, from the bytes the verifier decoded (shared, not copied), so verification builds no
    /// string that most requests never use.
    public var claimsJSON: String { String(decoding: claimsBytes[claimsRange], as: UTF8.self) }

    /// Holds `claimsJSON`'s UTF-8 in `claimsRange`: the decoded token's storage, or the text given to `init`.
    private let claimsBytes: [UInt8]
    private let claimsRange: Range<Int>

    public init(uid: String, projectID: String, expiresAt: Double, issuedAt: Double, authTime: Double?, claimsJSON: String) {
        let bytes = Array(claimsJSON.utf8)
        self.init(uid: uid, projectID: projectID, expiresAt: expiresAt, issuedAt: issuedAt, authTime: authTime,
                  claimsBytes: bytes, claimsRange: 0..<bytes.count)
    }

    /// A verified token whose claims text is `claimsBytes[claimsRange]` (valid UTF-8).
    init(
        uid: String, projectID: String, expiresAt: Double, issuedAt: Double, authTime: Double?,
        claimsBytes: [UInt8], claimsRange: Range<Int>
    ) {
        self.uid = uid
        self.projectID = projectID
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.authTime = authTime
        self.claimsBytes = claimsBytes
        self.claimsRange = claimsRange
    }

    /// Equal when every public field is equal (`claimsJSON` compared as a `String`, as before).
    public static func == (lhs: VerifiedToken, rhs: VerifiedToken) -> Bool {
        lhs.uid == rhs.uid && lhs.projectID == rhs.projectID && lhs.expiresAt == rhs.expiresAt
            && lhs.issuedAt == rhs.issuedAt && lhs.authTime == rhs.authTime && lhs.claimsJSON == rhs.claimsJSON
    }
}
