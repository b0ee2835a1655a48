/// What Google's Identity Toolkit says about a user, as far as revocation is concerned.
public enum UserAccountState: Sendable, Equatable {
    /// No such user: the account was deleted.
    case deleted
    /// The account exists; `validSince` (seconds since the epoch) is when its sessions were last revoked, if ever.
    case active(disabled: Bool, validSince: Double?)
}

/// A state and when it was looked up.
public struct CachedAccountState: Sendable, Equatable {
    public var state: UserAccountState
    /// When the lookup that produced it started (seconds since the epoch).
    public var fetchedAt: Double

    public init(state: UserAccountState, fetchedAt: Double) {
        self.state = state
        self.fetchedAt = fetchedAt
    }
}
