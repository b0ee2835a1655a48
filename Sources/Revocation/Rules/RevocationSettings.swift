/// What to do when Google cannot be reached (`REVOCATION_FAILURE_POLICY`).
public enum RevocationFailurePolicy: String, Sendable, Equatable, CaseIterable {
    /// Use the last known state however old; a user never looked up passes.
    case open
    /// Refuse (503 `UNAVAILABLE`) a user without a fresh state.
    case closed
}

/// The revocation check's settings (`firebase.revocation`).
public struct RevocationSettings: Sendable, Equatable {
    /// The default `max_age_seconds`: how late a revocation may take effect at most.
    public static let defaultMaxAge: Double = 300

    /// How long a looked-up state is used before it is looked up again (`REVOCATION_MAX_AGE_SECONDS`).
    public var maxAge: Double
    public var failurePolicy: RevocationFailurePolicy
    /// After a failed lookup, how long a user's next lookup waits (requests meanwhile follow the failure policy).
    public var retryAfterFailure: Double

    public init(maxAge: Double = Self.defaultMaxAge, failurePolicy: RevocationFailurePolicy = .open, retryAfterFailure: Double = 5) {
        self.maxAge = maxAge
        self.failurePolicy = failurePolicy
        self.retryAfterFailure = min(retryAfterFailure, maxAge)
    }
}
