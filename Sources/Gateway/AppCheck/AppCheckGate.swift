import GatewayConfig
import IDTokens
import Logging

/// The App Check step of a request: reads `X-Firebase-AppCheck`, verifies the token, consumes it on routes that ask,
/// counts the verdict, and in `enforce` refuses what failed (`monitor` lets everything through).
///
/// `checkNow` never suspends and settles every request whose token is cached or signed with a known key; it returns
/// nil when the step must wait (an unknown `kid` to refetch the JWKS for, or a consume call), and `check` is the way on.
final class AppCheckGate: Sendable {
    /// The header that carries the App Check token.
    static let headerName = "X-Firebase-AppCheck"

    /// One route's App Check policy, resolved when the route table is built.
    struct Policy: Sendable, Equatable {
        /// The route's name, the metric label.
        let route: String
        let mode: AppCheckSettings.Mode
        let consume: Bool
    }

    /// What the step decided, and the outcome for the metrics and the access log (`valid`, `missing`, `replayed`,
    /// `consume_unavailable`, or the rule that failed); `off` when App Check is off on the route.
    struct Verdict: Sendable, Equatable {
        /// The refusal in `enforce`; nil lets the request on.
        let refusal: GatewayError?
        let outcome: String

        static func pass(_ outcome: String) -> Verdict { Verdict(refusal: nil, outcome: outcome) }
        static func refuse(_ error: GatewayError, _ outcome: String) -> Verdict { Verdict(refusal: error, outcome: outcome) }
    }

    let authenticator: AppCheckAuthenticator
    /// Nil when no Google credentials are configured: a consuming route then counts `consume_unavailable`.
    let consumer: AppCheckConsumer?
    let metrics: AppCheckMetrics
    let logger: Logger

    init(authenticator: AppCheckAuthenticator, consumer: AppCheckConsumer?, metrics: AppCheckMetrics, logger: Logger) {
        self.authenticator = authenticator
        self.consumer = consumer
        self.metrics = metrics
        self.logger = logger
    }

    /// The verdict without suspending, or nil when `check` must finish the step.
    ///
    /// - Parameters:
    ///   - values: every `X-Firebase-AppCheck` field value of the request (more than one is a failure).
    func checkNow(_ values: [Substring], policy: Policy) -> Verdict? {
        guard policy.mode != .off else { return .pass("off") }
        let token: Substring
        switch self.token(values, policy: policy) {
        case .success(let found): token = found
        case .failure(let settled): return settled.verdict
        }
        do {
            _ = try self.authenticator.verifyNow(token)
        } catch where error.reason == .unknownKey {
            return nil
        } catch {
            return self.failed(error, policy: policy)
        }
        if policy.consume { return nil }
        return self.settle(.valid, policy: policy)
    }

    /// The verdict, suspending to refetch the JWKS for an unknown `kid` or to consume the token.
    func check(_ values: [Substring], policy: Policy) async -> Verdict {
        guard policy.mode != .off else { return .pass("off") }
        let token: Substring
        switch self.token(values, policy: policy) {
        case .success(let found): token = found
        case .failure(let settled): return settled.verdict
        }
        do {
            _ = try await self.authenticator.verify(token)
        } catch {
            return self.failed(error, policy: policy)
        }
        if policy.consume {
            return await self.consume(token, policy: policy)
        }
        return self.settle(.valid, policy: policy)
    }

    /// The one token of the request, or the verdict on a request without exactly one.
    private func token(_ values: [Substring], policy: Policy) -> Result<Substring, VerdictBox> {
        guard let value = values.first, !value.isEmpty else {
            return .failure(VerdictBox(self.settle(.missing, policy: policy, refusal: .appCheckMissing())))
        }
        guard values.count == 1 else {
            let error = TokenVerificationError(.malformed, "Send exactly one X-Firebase-AppCheck header.")
            return .failure(VerdictBox(self.failed(error, policy: policy)))
        }
        return .success(value)
    }

    private func failed(_ error: TokenVerificationError, policy: Policy) -> Verdict {
        if policy.mode == .monitor {
            self.logger.info(
                "App Check token refused (monitor: request let through)", metadata: ["route": "\(policy.route)", "reason": "\(error.reason.rawValue)"]
            )
        }
        return self.settle(.invalid(error.reason.rawValue), policy: policy, refusal: .appCheckFailed(error))
    }

    private func consume(_ token: Substring, policy: Policy) async -> Verdict {
        guard let consumer = self.consumer else {
            self.logger.warning("App Check consume needs Google credentials; none are configured", metadata: ["route": "\(policy.route)"])
            return self.consumeUnavailable(policy: policy)
        }
        let alreadyConsumed: Bool
        do {
            alreadyConsumed = try await consumer.consume(token)
        } catch {
            self.logger.warning("App Check consume failed", metadata: ["route": "\(policy.route)", "error": "\(error)"])
            return self.consumeUnavailable(policy: policy)
        }
        return alreadyConsumed ? self.settle(.replayed, policy: policy, refusal: .appCheckReplayed()) : self.settle(.valid, policy: policy)
    }

    private func consumeUnavailable(policy: Policy) -> Verdict {
        self.settle(.consumeUnavailable, policy: policy, refusal: .appCheckConsumeUnavailable())
    }

    /// Counts `outcome` and decides: `refusal` in `enforce`, on in `monitor` (and for a valid token).
    private func settle(_ outcome: AppCheckMetrics.Outcome, policy: Policy, refusal: GatewayError? = nil) -> Verdict {
        self.metrics.record(route: policy.route, mode: policy.mode, outcome: outcome)
        guard let refusal, policy.mode == .enforce else { return .pass(outcome.label) }
        return .refuse(refusal, outcome.label)
    }
}

/// A verdict carried as the failure of a `Result`.
struct VerdictBox: Error {
    let verdict: AppCheckGate.Verdict

    init(_ verdict: AppCheckGate.Verdict) {
        self.verdict = verdict
    }
}
