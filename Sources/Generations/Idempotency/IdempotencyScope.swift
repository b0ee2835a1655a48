import IDTokens

/// The record an idempotency key names: one user's key on one route. Another user's identical key, or the same key
/// on another route, is another record.
public struct IdempotencyScope: Sendable, Hashable {
    /// The user's pseudonym (``UserHash/logIdentifier(_:)``): no raw uid in a store's keys.
    public let userHash: String
    /// The route's name.
    public let route: String
    /// 32 hex digits of SHA-256 over the key: fixed length, whatever the key holds.
    public let keyDigest: String

    public init(uid: String, route: String, key: IdempotencyKey) {
        self.init(userHash: UserHash.logIdentifier(uid), route: route, key: key)
    }

    public init(userHash: String, route: String, key: IdempotencyKey) {
        self.userHash = userHash
        self.route = route
        self.keyDigest = SHA256Digest.hex(SHA256Digest.hash(Array(("storygate/idempotency-key/" + key.value).utf8)).prefix(16))
    }

    /// `storygate:idem:{<user hash>}:<route>:<key digest>`: hash-tagged by the user, as the rate limits are, so a
    /// user's records and buckets share a Redis Cluster slot.
    public var storageKey: String { "storygate:idem:{\(self.userHash)}:\(self.route):\(self.keyDigest)" }
}

/// What a request under an idempotency key asks for: the SHA-256 of its method, route and body, each
/// length-prefixed. The same key with another fingerprint is a reuse (422).
public struct RequestFingerprint: Sendable, Hashable {
    /// 64 hex digits.
    public let hex: String

    public init(hex: String) {
        self.hex = hex
    }

    public init(method: String, route: String, body: some Collection<UInt8>) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(body.count + method.utf8.count + route.utf8.count + 24)
        for part in [Array(method.utf8), Array(route.utf8)] {
            bytes.append(contentsOf: "\(part.count):".utf8)
            bytes.append(contentsOf: part)
        }
        bytes.append(contentsOf: "\(body.count):".utf8)
        bytes.append(contentsOf: body)
        self.hex = SHA256Digest.hex(SHA256Digest.hash(bytes))
    }
}
