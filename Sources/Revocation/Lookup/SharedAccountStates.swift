/// Where replicas share what they looked up (Redis with `REDIS_URL`), so a fleet looks each user up once per max
/// age, and through which a drop reaches every replica. Failures are the implementation's to log: a state that
/// cannot be shared is looked up at Google instead.
public protocol SharedAccountStates: Sendable {
    /// The state another replica stored for `uid`, if any.
    func load(uid: String) async -> CachedAccountState?
    /// Stores `state` for the rest of its max age.
    func save(_ state: CachedAccountState, uid: String) async
    /// Deletes the shared states of `uids` and tells every replica to drop its own.
    func broadcastDrop(uids: [String]) async throws
}
