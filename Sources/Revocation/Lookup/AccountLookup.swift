/// Looks a user's state up (in production, Identity Toolkit's `accounts:lookup`).
public protocol AccountLookup: Sendable {
    func lookup(uid: String) async throws(AccountLookupError) -> UserAccountState
}
