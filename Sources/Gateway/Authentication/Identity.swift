public import IDTokens

/// Who a request comes from, once authenticated.
public struct Identity: Sendable, Equatable {
    public enum Source: String, Sendable, CaseIterable {
        /// A verified Firebase ID token (a dev-minted one included).
        case firebase
        /// The `X-User-Id` header, accepted in dev mode only.
        case dev
        /// A signed identity assertion from another gateway (`IdentityAssertionVerifier`).
        case assertion
    }

    public let uid: String
    public let source: Source
    /// The verified token behind a `.firebase` identity.
    public let token: VerifiedToken?

    public init(uid: String, source: Source, token: VerifiedToken?) {
        self.uid = uid
        self.source = source
        self.token = token
    }
}
