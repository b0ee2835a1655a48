import GatewayConfig
import HTTPTypes
import HTTPWire
import NIOCore
public import Logging
import Prometheus
public import RateLimiting

/// Per-route, per-user token buckets: checks a caller against the route's limit and renders the IETF
/// `RateLimit-Policy` / `RateLimit` headers (draft-ietf-httpapi-ratelimit-headers) every limited response carries.
public struct RateLimiter: Sendable {
    public let limits: [String: RateLimit]
    public let store: any RateLimitStore
    /// Each limit with what its answers carry that never changes, worked out once.
    private let rendered: [String: Rendered]
    let metrics: GatewayMetrics?
    let logger: Logger

    public init(limits: [RateLimit], store: any RateLimitStore, metrics: GatewayMetrics? = nil, logger: Logger) {
        self.limits = Dictionary(limits.map { ($0.name, $0) }, uniquingKeysWith: { _, last in last })
        self.store = store
        self.rendered = self.limits.mapValues { Rendered($0, metrics: metrics) }
        self.metrics = metrics
        self.logger = logger
    }

    static let policyHeader = HTTPField.Name("RateLimit-Policy")!
    static let stateHeader = HTTPField.Name("RateLimit")!

    /// A limit, its `RateLimit-Policy` field, its quoted name (the start of every `RateLimit` value) and its
    /// decision counters. A class: one reference to take per request, not one per field.
    fileprivate final class Rendered: Sendable {
        let limit: RateLimit
        let policy: HTTPField
        let quotedName: String
        /// `allowed`, `limited` and `shadow` (nil without metrics).
        let decided: (allowed: Prometheus.Counter, limited: Prometheus.Counter, shadow: Prometheus.Counter)?

        init(_ limit: RateLimit, metrics: GatewayMetrics?) {
            self.limit = limit
            self.policy = HTTPField(name: RateLimiter.policyHeader, value: RateLimitHeaders.policy(limit))
            self.quotedName = RateLimitHeaders.quoted(limit.name)
            self.decided = metrics.map { metrics in
                (
                    metrics.rateLimitCounter(limit: limit.name, decision: "allowed"),
                    metrics.rateLimitCounter(limit: limit.name, decision: "limited"),
                    metrics.rateLimitCounter(limit: limit.name, decision: "shadow")
                )
            }
        }
    }

    /// A decision as the fields its answer carries (a 200 or the 429): `RateLimit-Policy`, then `RateLimit`. Written
    /// where the answer's fields are (``write(into:)``), with no `HTTPFields` in between.
    struct Answer: Sendable {
        fileprivate let rendered: Rendered
        let decision: RateLimitDecision

        /// `RateLimit-Policy` and `RateLimit`, appended to `output`.
        func write(into output: inout some FieldOutput) {
            output.append(self.rendered.policy)
            output.append(RateLimiter.stateHeader, RateLimitHeaders.state(quotedName: self.rendered.quotedName, self.decision))
        }

        /// The two fields as `HTTPFields`.
        var fields: HTTPFields {
            var fields = HTTPFields()
            fields.reserveCapacity(2)
            self.write(into: &fields)
            return fields
        }
    }

    /// The headers to add to the response, or a 429 `RATE_LIMITED` (or 503 when the store fails closed).
    /// - Parameter outcome: set to `allowed`, `limited`, `shadow` or `store_error` (for the access log).
    func check(_ rule: RouteRateLimit, key: String, outcome: inout String) async throws(GatewayError) -> HTTPFields {
        try await self.answer(rule, key: key, outcome: &outcome).fields
    }

    /// `check`'s decision as the answer's fields, written where the answer is made.
    func answer(_ rule: RouteRateLimit, key: String, outcome: inout String) async throws(GatewayError) -> Answer {
        let rendered = try self.rendered(rule)
        let limit = rendered.limit
        let decision: RateLimitDecision
        do {
            decision = try await self.store.check(limit, key: key, cost: rule.cost)
        } catch {
            throw self.storeFailed(limit, reason: "rate_limit_store_\(error.shortDescription)", outcome: &outcome)
        }
        return try self.apply(decision, of: rendered, outcome: &outcome)
    }

    /// `answer` for a connection's event loop, from `eventLoop` and back on it, with no task for a store that can answer so:
    /// `then` gets the answer, or the refusal, with the outcome for the access log.
    func answer(
        _ rule: RouteRateLimit, key: String, on eventLoop: any EventLoop,
        then complete: @escaping (_ answer: Answer?, _ refusal: GatewayError?, _ outcome: String) -> Void
    ) {
        let rendered: Rendered
        do {
            rendered = try self.rendered(rule)
        } catch {
            complete(nil, error, "")
            return
        }
        self.store.check(rendered.limit, key: key, cost: rule.cost, on: eventLoop) { result in
            var outcome = ""
            switch result {
            case .success(let decision):
                do throws(GatewayError) {
                    let answer = try self.apply(decision, of: rendered, outcome: &outcome)
                    complete(answer, nil, outcome)
                } catch {
                    complete(nil, error, outcome)
                }
            case .failure(let error):
                let reason = "rate_limit_store_\(error.shortDescription)"
                let refusal = self.storeFailed(rendered.limit, reason: reason, outcome: &outcome)
                complete(nil, refusal, outcome)
            }
        }
    }

    /// A limit that cannot be checked: 503 `UNAVAILABLE` (fail closed), counted as `store_error`.
    private func storeFailed(_ limit: RateLimit, reason: String, outcome: inout String) -> GatewayError {
        outcome = "store_error"
        self.metrics?.rateLimitDecided(limit: limit.name, decision: outcome)
        return GatewayError(
            status: .serviceUnavailable, code: "UNAVAILABLE",
            message: "Rate limits cannot be checked right now; try again shortly.",
            reason: reason, retryAfter: 1
        )
    }

    /// Whether `checkNow` decides: the buckets are in this process.
    var decidesWithoutWaiting: Bool { self.store.decidesWithoutWaiting }

    /// `check` without suspending, for a store that `decidesWithoutWaiting`. A store that cannot decide so fails
    /// closed (503 `UNAVAILABLE`, reason `rate_limit_store_cannot_decide_now`): the request is never let through
    /// unchecked.
    func checkNow(_ rule: RouteRateLimit, key: String, outcome: inout String) throws(GatewayError) -> Answer {
        let rendered = try self.rendered(rule)
        guard let decision = self.store.checkWithoutWaiting(rendered.limit, key: key, cost: rule.cost) else {
            throw self.storeFailed(rendered.limit, reason: "rate_limit_store_cannot_decide_now", outcome: &outcome)
        }
        return try self.apply(decision, of: rendered, outcome: &outcome)
    }

    private func rendered(_ rule: RouteRateLimit) throws(GatewayError) -> Rendered {
        guard let rendered = self.rendered[rule.name] else {
            // Routes are checked against the limits at start-up; reaching this is a bug: fail closed.
            throw GatewayError.internalError()
        }
        return rendered
    }

    /// A decision as the fields of the answer, or as the 429 that carries them; counted and, in shadow mode, logged.
    private func apply(_ decision: RateLimitDecision, of rendered: Rendered, outcome: inout String) throws(GatewayError) -> Answer {
        let limit = rendered.limit
        let answer = Answer(rendered: rendered, decision: decision)
        if decision.shadowLimited {
            outcome = "shadow"
            rendered.decided?.shadow.increment()
        } else if decision.allowed {
            outcome = "allowed"
            rendered.decided?.allowed.increment()
        } else {
            outcome = "limited"
            rendered.decided?.limited.increment()
        }
        if decision.shadowLimited {
            self.logger.notice("rate limit exceeded (shadow mode: allowed)", metadata: ["limit": "\(limit.name)"])
        }
        guard decision.allowed else {
            var error = GatewayError.rateLimited(limit: limit.name, retryAfter: RateLimitHeaders.retryAfterSeconds(decision))
            answer.write(into: &error.headers)
            throw error
        }
        return answer
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
