import GatewayConfig
import Prometheus

/// App Check verdicts by route, mode and outcome, in `monitor` and `enforce` alike, so an operator can watch
/// `monitor` before turning on `enforce`. Every label value comes from a fixed set (the route table, two modes, the
/// outcomes below), never from the request.
final class AppCheckMetrics: Sendable {
    /// What became of one request's App Check token.
    enum Outcome: Sendable, Hashable {
        /// Verified (and, on a consuming route, not used before).
        case valid
        /// No `X-Firebase-AppCheck` header.
        case missing
        /// A rule failed: the label is the rule (`expired`, `bad_signature`, `wrong_audience`, …).
        case invalid(String)
        /// A limited-use token that was already used.
        case replayed
        /// Google's App Check API could not be asked whether the token was used.
        case consumeUnavailable

        var label: String {
            switch self {
            case .valid: "valid"
            case .missing: "missing"
            case .invalid(let reason): reason
            case .replayed: "replayed"
            case .consumeUnavailable: "consume_unavailable"
            }
        }
    }

    private struct Key: Hashable, Sendable {
        let route: String
        let mode: AppCheckSettings.Mode
        let outcome: String
    }

    private let results: LabeledFamily<Key, Prometheus.Counter>

    init(registry: PrometheusCollectorRegistry) {
        let name = (
            "storygate_app_check_results_total",
            "App Check verdicts by route, mode (monitor, enforce) and outcome: valid, missing, replayed, consume_unavailable, or the rule that failed."
        )
        self.results = LabeledFamily { key in
            registry.makeCounter(descriptor: GatewayMetrics.descriptor(name), labels: [("route", key.route), ("mode", key.mode.rawValue), ("outcome", key.outcome)])
        }
    }

    func record(route: String, mode: AppCheckSettings.Mode, outcome: Outcome) {
        self.results.get(Key(route: route, mode: mode, outcome: outcome.label)).increment()
    }
}
