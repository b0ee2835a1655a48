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

    enum Verdict: Sendable, Equatable {
        case pass
        case refuse(GatewayError)
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
        guard policy.mode != .off else { return .pass }
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
        self.metrics.record(route: policy.route, mode: policy.mode, outcome: .valid)
        return .pass
    }

    /// The verdict, suspending to refetch the JWKS for an unknown `kid` or to consume the token.
    func check(_ values: [Substring], policy: Policy) async -> Verdict {
        guard policy.mode != .off else { return .pass }
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
        self.metrics.record(route: policy.route, mode: policy.mode, outcome: .valid)
        return .pass
    }

    /// The one token of the request, or the verdict on a request without exactly one.
    private func token(_ values: [Substring], policy: Policy) -> Result<Substring, VerdictBox> {
        guard let value = values.first, !value.isEmpty else {
            self.metrics.record(route: policy.route, mode: policy.mode, outcome: .missing)
            return .failure(VerdictBox(policy.mode == .enforce ? .refuse(.appCheckMissing()) : .pass))
        }
        guard values.count == 1 else {
            let error = TokenVerificationError(.malformed, "Send exactly one X-Firebase-AppCheck header.")
            return .failure(VerdictBox(self.failed(error, policy: policy)))
        }
        return .success(value)
    }

    private func failed(_ error: TokenVerificationError, policy: Policy) -> Verdict {
        self.metrics.record(route: policy.route, mode: policy.mode, outcome: .invalid(error.reason.rawValue))
        if policy.mode == .monitor {
            self.logger.info(
                "App Check token refused (monitor: request let through)", metadata: ["route": "\(policy.route)", "reason": "\(error.reason.rawValue)"]
            )
            return .pass
        }
        return .refuse(.appCheckFailed(error))
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
        guard alreadyConsumed else {
            self.metrics.record(route: policy.route, mode: policy.mode, outcome: .valid)
            return .pass
        }
        self.metrics.record(route: policy.route, mode: policy.mode, outcome: .replayed)
        return policy.mode == .enforce ? .refuse(.appCheckReplayed()) : .pass
    }

    private func consumeUnavailable(policy: Policy) -> Verdict {
        self.metrics.record(route: policy.route, mode: policy.mode, outcome: .consumeUnavailable)
        return policy.mode == .enforce ? .refuse(.appCheckConsumeUnavailable()) : .pass
    }
}

/// A verdict carried as the failure of a `Result`.
struct VerdictBox: Error {
    let verdict: AppCheckGate.Verdict

    init(_ verdict: AppCheckGate.Verdict) {
        self.verdict = verdict
    }
}
