import HTTPTypes
public import Logging
public import RateLimiting

/// Per-route, per-user token buckets: checks a caller against the route's limit and renders the IETF
/// `RateLimit-Policy` / `RateLimit` headers (draft-ietf-httpapi-ratelimit-headers) every limited response carries.
public struct RateLimiter: Sendable {
    public let limits: [String: RateLimit]
    public let store: any RateLimitStore
    /// Each limit's `RateLimit-Policy` value (it never changes).
    private let policies: [String: String]
    let metrics: GatewayMetrics?
    let logger: Logger

    public init(limits: [RateLimit], store: any RateLimitStore, metrics: GatewayMetrics? = nil, logger: Logger) {
        self.limits = Dictionary(limits.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        self.store = store
        self.policies = self.limits.mapValues { RateLimitHeaders.policy($0) }
        self.metrics = metrics
        self.logger = logger
    }

    static let policyHeader = HTTPField.Name("RateLimit-Policy")!
    static let stateHeader = HTTPField.Name("RateLimit")!

    /// The headers to add to the response, or a 429 `RATE_LIMITED` (or 503 when the store fails closed).
    /// - Parameter outcome: set to `allowed`, `limited`, `shadow` or `store_error` (for the access log).
    func check(_ rule: RouteRateLimit, key: String, outcome: inout String) async throws(GatewayError) -> HTTPFields {
        let limit = try self.limit(rule)
        let decision: RateLimitDecision
        do {
            decision = try await self.store.check(limit, key: key, cost: rule.cost)
        } catch {
            outcome = "store_error"
            self.metrics?.rateLimitDecided(limit: limit.name, decision: outcome)
            throw GatewayError(
                status: .serviceUnavailable, code: "UNAVAILABLE",
                message: "Rate limits cannot be checked right now; try again shortly.",
                reason: "rate_limit_store_\(error.shortDescription)", retryAfter: 1
            )
        }
        return try self.apply(decision, of: limit, outcome: &outcome)
    }

    /// Whether `checkNow` decides: the buckets are in this process.
    var decidesWithoutWaiting: Bool { self.store.decidesWithoutWaiting }

    /// `check` without suspending, for a store that `decidesWithoutWaiting`; nil (nothing taken) for any other.
    func checkNow(_ rule: RouteRateLimit, key: String, outcome: inout String) throws(GatewayError) -> HTTPFields? {
        let limit = try self.limit(rule)
        guard let decision = self.store.checkWithoutWaiting(limit, key: key, cost: rule.cost) else { return nil }
        return try self.apply(decision, of: limit, outcome: &outcome)
    }

    private func limit(_ rule: RouteRateLimit) throws(GatewayError) -> RateLimit {
        guard let limit = self.limits[rule.name] else {
            // Routes are checked against the limits at start-up; reaching this is a bug: fail closed.
            throw GatewayError.internalError()
        }
        return limit
    }

    /// A decision as headers, or as the 429 that carries them; counted and, in shadow mode, logged.
    private func apply(_ decision: RateLimitDecision, of limit: RateLimit, outcome: inout String) throws(GatewayError) -> HTTPFields {
        var headers = HTTPFields()
        headers[Self.policyHeader] = self.policies[limit.name] ?? RateLimitHeaders.policy(limit)
        headers[Self.stateHeader] = RateLimitHeaders.state(limit, decision)
        outcome = decision.shadowLimited ? "shadow" : decision.allowed ? "allowed" : "limited"
        self.metrics?.rateLimitDecided(limit: limit.name, decision: outcome)
        if decision.shadowLimited {
            self.logger.notice("rate limit exceeded (shadow mode: allowed)", metadata: ["limit": "\(limit.name)"])
        }
        guard decision.allowed else {
            var error = GatewayError.rateLimited(limit: limit.name, retryAfter: RateLimitHeaders.retryAfterSeconds(decision))
            error.headers.append(contentsOf: headers)
            throw error
        }
        return headers
    }
}

extension GatewayError {
    /// Over a limit: 429 with `Retry-After` and `retryAfter` in seconds, rounded up.
    static func rateLimited(limit: String, retryAfter: Int) -> GatewayError {
        GatewayError(
            status: .tooManyRequests, code: "RATE_LIMITED",
            message: "Too many requests for \(limit); retry after \(retryAfter) s.",
            reason: "rate_limited", retryAfter: retryAfter
        )
    }
}
