public import Logging
public import RateLimiting
public import Revocation
import IDTokens

/// The revocation states shared through Redis: each user's state under `storygate:revocation:<uid hash>` (the logs'
/// hash, so no raw uid is a key) for the rest of its max age, and drops broadcast as `{"uids":[…]}` on
/// ``channel``, which every replica subscribes to. Redis failures are logged and cost a lookup at Google, never a
/// refusal (except a drop that cannot be broadcast, which the admin route reports).
public final class RedisRevocationStates: SharedAccountStates {
    public static let channel = "storygate:revocation:drops"
    static let keyPrefix = "storygate:revocation:"

    private let redis: RedisMessaging
    private let maxAge: Double
    private let logger: Logger
    private let now: @Sendable () -> Double

    public init(redis: RedisMessaging, maxAge: Double, logger: Logger, now: @escaping @Sendable () -> Double) {
        self.redis = redis
        self.maxAge = maxAge
        self.logger = logger
        self.now = now
    }

    /// Delivers the drops other replicas broadcast to `checker`.
    public func deliverDrops(to checker: RevocationChecker) {
        let logger = self.logger
        self.redis.onMessage { message in
            do throws(RevocationDropRequest.Problem) {
                checker.drop(uids: try RevocationDropRequest.uids(from: Array(message.utf8)))
            } catch {
                logger.warning("ignored a malformed revocation drop message", metadata: ["reason": "\(error.reason)"])
            }
        }
    }

    static func key(_ uid: String) -> String { Self.keyPrefix + UserHash.logIdentifier(uid) }

    public func load(uid: String) async -> CachedAccountState? {
        do {
            guard let text = try await self.redis.get(Self.key(uid)) else { return nil }
            return Self.decode(text)
        } catch {
            self.logger.warning("cannot read a shared revocation state", metadata: ["error": "\(error.shortDescription)"])
            return nil
        }
    }

    public func save(_ state: CachedAccountState, uid: String) async {
        let remaining = Int(((state.fetchedAt + self.maxAge - self.now()) * 1000).rounded(.down))
        guard remaining > 0 else { return }
        do {
            try await self.redis.set(Self.key(uid), Self.encode(state), expiresInMilliseconds: remaining)
        } catch {
            self.logger.warning("cannot share a revocation state", metadata: ["error": "\(error.shortDescription)"])
        }
    }

    public func broadcastDrop(uids: [String]) async throws {
        try await self.redis.delete(uids.map(Self.key))
        try await self.redis.publish("{\"uids\":[" + uids.map(JSONWriter.quoted).joined(separator: ",") + "]}")
    }

    /// `<fetchedAt> deleted`, or `<fetchedAt> active <0|1> <validSince|->`.
    static func encode(_ state: CachedAccountState) -> String {
        let fetchedAt = JSONWriter.number(state.fetchedAt)
        switch state.state {
        case .deleted:
            return fetchedAt + " deleted"
        case .active(let disabled, let validSince):
            return fetchedAt + " active " + (disabled ? "1" : "0") + " " + (validSince.map(JSONWriter.number) ?? "-")
        }
    }

    static func decode(_ text: String) -> CachedAccountState? {
        let parts = text.split(separator: " ")
        guard parts.count >= 2, let fetchedAt = Double(parts[0]), fetchedAt.isFinite else { return nil }
        switch (parts[1], parts.count) {
        case ("deleted", 2):
            return CachedAccountState(state: .deleted, fetchedAt: fetchedAt)
        case ("active", 4):
            guard parts[2] == "0" || parts[2] == "1" else { return nil }
            let validSince: Double?
            if parts[3] == "-" {
                validSince = nil
            } else {
                guard let value = Double(parts[3]), value.isFinite else { return nil }
                validSince = value
            }
            return CachedAccountState(state: .active(disabled: parts[2] == "1", validSince: validSince), fetchedAt: fetchedAt)
        default:
            return nil
        }
    }
}
