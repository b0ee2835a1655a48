import Synchronization

/// Recent keys' tags (`RedisRateLimitStore.Configuration.keyHash`, a SHA over the uid), so a user's tag is worked
/// out once while they are active rather than on every check. Bounded: when full it starts again empty.
final class KeyTagCache: Sendable {
    private let tags: Mutex<[String: String]>
    private let capacity: Int
    private let keyHash: @Sendable (String) -> String

    init(capacity: Int, keyHash: @escaping @Sendable (String) -> String) {
        precondition(capacity > 0, "a cache holds at least one tag")
        self.tags = Mutex([:])
        self.capacity = capacity
        self.keyHash = keyHash
    }

    /// `keyHash(key)`, from the cache when it holds it.
    func tag(for key: String) -> String {
        if let tag = self.tags.withLock({ $0[key] }) { return tag }
        let tag = self.keyHash(key)
        self.tags.withLock { tags in
            if tags.count >= self.capacity { tags.removeAll(keepingCapacity: true) }
            tags[key] = tag
        }
        return tag
    }

    /// Tags held, for tests.
    var count: Int { self.tags.withLock { $0.count } }
}
