/// Idempotency keys on generations (`idempotency:` in the config file): how long an answer given under an
/// `Idempotency-Key` is kept, and what a request does when the store that keeps it cannot be reached. Which routes
/// take a key is each route's `idempotency` (`RouteConfiguration.idempotencyMode`).
///
/// | key | variable | type | default |
/// |---|---|---|---|
/// | `idempotency.ttl_seconds` | `IDEMPOTENCY_TTL_SECONDS` | 1...2592000: how long a 2xx answer under a key is kept and replayed | `86400` |
/// | `idempotency.failure_policy` | `IDEMPOTENCY_FAILURE_POLICY` | `open`, `closed` (`IdempotencyFailurePolicy`) | `open` |
public struct IdempotencySettings: Sendable, Equatable {
    /// Seconds a 2xx answer given under an `Idempotency-Key` is kept; a retry with the key within it gets the answer again.
    public var ttlSeconds = 86_400
    /// What a request with a key does when the store is unreachable.
    public var failurePolicy = IdempotencyFailurePolicy.open

    public init() {}
}

/// Whether a route reads the `Idempotency-Key` request header (a route's `idempotency:`). On an upstream route it
/// applies to POST and PATCH requests only.
public enum IdempotencyMode: String, Sendable, CaseIterable {
    /// The header is not read: every request runs.
    case off
    /// A request with a key runs once per key; one without runs as before.
    case optional
    /// A request without a key is refused.
    case required
}

/// What a request under an `Idempotency-Key` does when the idempotency store cannot be reached.
public enum IdempotencyFailurePolicy: String, Sendable, CaseIterable {
    /// It runs without the guarantee (a retry may run it again), and is counted.
    case open
    /// It is refused with 503.
    case closed
}

extension IdempotencyMode: CaseNamed {
    static var names: [String] { Self.allCases.map(\.rawValue) }
}

extension IdempotencyFailurePolicy: CaseNamed {
    static var names: [String] { Self.allCases.map(\.rawValue) }
}
