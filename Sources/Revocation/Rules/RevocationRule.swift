/// The revocation rule, apart from any I/O or cache: from what is known about a user (a state and when it was looked
/// up, when a lookup last failed), a token's `iat`, `now` and the settings, either a verdict or "look it up".
public struct RevocationRule: Sendable {
    /// What `decide` concluded.
    public enum Decision: Sendable, Equatable {
        /// A verdict; `stateAge` is the age of the state it rests on (nil: none, a user never looked up).
        case decided(RevocationVerdict, stateAge: Double?)
        /// No fresh state and no recent failure: look the user up, then decide again.
        case needsLookup
    }

    public let settings: RevocationSettings

    public init(settings: RevocationSettings) {
        self.settings = settings
    }

    /// The verdict for a token issued at `issuedAt`, given `known` (nil: never looked up) and `lastFailureAt`
    /// (when the latest lookup for this user failed, if after `known` was fetched).
    public func decide(known: CachedAccountState?, lastFailureAt: Double?, issuedAt: Double, now: Double) -> Decision {
        if let known, now - known.fetchedAt < self.settings.maxAge {
            return .decided(Self.verdict(known.state, issuedAt: issuedAt), stateAge: max(0, now - known.fetchedAt))
        }
        guard let lastFailureAt, now - lastFailureAt < self.settings.retryAfterFailure else { return .needsLookup }
        return self.decideWithoutFreshState(known: known, issuedAt: issuedAt, now: now)
    }

    /// The verdict when a lookup has just failed or recently failed: the failure policy.
    public func decideWithoutFreshState(known: CachedAccountState?, issuedAt: Double, now: Double) -> Decision {
        switch self.settings.failurePolicy {
        case .closed:
            return .decided(.unavailable, stateAge: known.map { max(0, now - $0.fetchedAt) })
        case .open:
            guard let known else { return .decided(.allowed, stateAge: nil) }
            return .decided(Self.verdict(known.state, issuedAt: issuedAt), stateAge: max(0, now - known.fetchedAt))
        }
    }

    /// The Admin SDK's `checkRevoked` rule on one state.
    public static func verdict(_ state: UserAccountState, issuedAt: Double) -> RevocationVerdict {
        switch state {
        case .deleted:
            return .deleted
        case .active(let disabled, let validSince):
            if disabled { return .disabled }
            if let validSince, issuedAt < validSince { return .revoked }
            return .allowed
        }
    }
}
