public import CoreMetrics
public import Prometheus
import Synchronization

/// The gateway's metrics, in one Prometheus registry per application (so two gateways in one process, as in the
/// tests, never share counters). `GET /metrics` renders the registry in the Prometheus text format.
///
/// The request path holds its metrics ready: counters are made once per label set and kept, so a request costs
/// a lock-free dictionary lookup per metric (``LabeledFamily``) and a few relaxed atomic adds.
public final class GatewayMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// A swift-metrics factory over the same registry, for library modules (OpenAI, StoryFunctions).
    public let factory: any MetricsFactory

    let inFlight: Prometheus.Gauge
    /// App Check verdicts by route, mode and outcome.
    let appCheck: AppCheckMetrics
    /// Idempotency outcomes and jobs.
    let generations: GenerationMetrics
    private let requests: LabeledFamily<RequestKey, Prometheus.Counter>
    private let latency: LabeledFamily<String, DurationHistogram>
    private let upstreamLatency: LabeledFamily<String, DurationHistogram>
    private let upstreamErrors: LabeledFamily<LabelPair, Prometheus.Counter>
    private let authResults: LabeledFamily<LabelPair, Prometheus.Counter>
    private let rateLimitDecisions: LabeledFamily<LabelPair, Prometheus.Counter>
    /// `storygate_auth_results_total{result="ok"}` for each identity source, made at start (a few series at 0).
    private let authenticatedBySource: [Identity.Source: Prometheus.Counter]

    /// Latency buckets from 100 µs to 60 s.
    static let latencyBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30), .seconds(60),
    ]

    /// - Parameter build: reported as `storygate_build_info{version, commit} 1` (commit `unknown` when not known).
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), build: BuildInfo = .current) {
        self.registry = registry
        self.factory = DescribedMetricsFactory(registry: registry, durationBuckets: Self.latencyBuckets)
        registry.makeGauge(
            descriptor: Self.descriptor("storygate_build_info", "The running build: always 1, with its version and git commit as labels."),
            labels: [("version", build.version), ("commit", build.commit ?? "unknown")]
        ).set(to: 1)
        self.appCheck = AppCheckMetrics(registry: registry)
        self.generations = GenerationMetrics(registry: registry)
        self.inFlight = registry.makeGauge(
            descriptor: Self.descriptor("storygate_http_requests_in_flight", "Requests being answered now.")
        )
        let requests = ("storygate_http_requests_total", "Requests answered, by route and HTTP status.")
        self.requests = LabeledFamily { key in
            registry.makeCounter(descriptor: Self.descriptor(requests), labels: [("route", key.route), ("status", String(key.status))])
        }
        let latency = (
            "storygate_http_request_duration_seconds", "Time from the request head to the last byte of the answer, by route."
        )
        self.latency = LabeledFamily { route in
            registry.makeDurationHistogram(descriptor: Self.descriptor(latency), labels: [("route", route)], buckets: Self.latencyBuckets)
        }
        let upstreamLatency = ("storygate_upstream_duration_seconds", "Time until an upstream's response head, by route.")
        self.upstreamLatency = LabeledFamily { route in
            registry.makeDurationHistogram(descriptor: Self.descriptor(upstreamLatency), labels: [("route", route)], buckets: Self.latencyBuckets)
        }
        let upstreamErrors = (
            "storygate_upstream_errors_total", "Upstream calls that failed, by route and kind (unreachable, timeout, body_too_large)."
        )
        self.upstreamErrors = LabeledFamily { key in
            registry.makeCounter(descriptor: Self.descriptor(upstreamErrors), labels: [("route", key.first), ("kind", key.second)])
        }
        let authResults = (
            "storygate_auth_results_total",
            "Authentication outcomes: result ok (reason: the identity source) or failed (reason: the rule that failed)."
        )
        let authFamily = LabeledFamily<LabelPair, Prometheus.Counter> { key in
            registry.makeCounter(descriptor: Self.descriptor(authResults), labels: [("result", key.first), ("reason", key.second)])
        }
        self.authResults = authFamily
        self.authenticatedBySource = Dictionary(
            uniqueKeysWithValues: Identity.Source.allCases.map { ($0, authFamily.get(LabelPair("ok", $0.rawValue))) }
        )
        let decisions = (
            "storygate_rate_limit_decisions_total",
            "Rate-limit checks by limit and decision: allowed, limited, shadow (over a shadow limit, allowed), store_error."
        )
        self.rateLimitDecisions = LabeledFamily { key in
            registry.makeCounter(descriptor: Self.descriptor(decisions), labels: [("limit", key.first), ("decision", key.second)])
        }
    }

    static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    static func descriptor(_ nameAndHelp: (String, String)) -> MetricNameDescriptor {
        Self.descriptor(nameAndHelp.0, nameAndHelp.1)
    }

    func requestStarted() {
        self.inFlight.increment()
    }

    func requestFinished() {
        self.inFlight.decrement()
    }

    func requestAnswered(route: String, status: Int, duration: Duration) {
        self.requests.get(RequestKey(route: route, status: status)).increment()
        self.latency.get(route).record(duration)
    }

    func authenticated(source: Identity.Source) {
        self.authenticatedBySource[source]?.increment()
    }

    func authenticationFailed(reason: String) {
        self.authResults.get(LabelPair("failed", reason)).increment()
    }

    func rateLimitDecided(limit: String, decision: String) {
        self.rateLimitCounter(limit: limit, decision: decision).increment()
    }

    /// The counter of one limit's decisions of one kind, to hold and increment (the rate limiter keeps its own).
    func rateLimitCounter(limit: String, decision: String) -> Prometheus.Counter {
        self.rateLimitDecisions.get(LabelPair(limit, decision))
    }

    /// The histogram of one route's upstream answer times, to hold and record into (each upstream route keeps its own).
    func upstreamLatency(route: String) -> DurationHistogram {
        self.upstreamLatency.get(route)
    }

    func upstreamFailed(route: String, kind: String) {
        self.upstreamErrors.get(LabelPair(route, kind)).increment()
    }
}

struct RequestKey: Hashable, Sendable {
    let route: String
    let status: Int
}

struct LabelPair: Hashable, Sendable {
    let first: String
    let second: String

    init(_ first: String, _ second: String) {
        self.first = first
        self.second = second
    }
}

/// One metric per label set, made on first use and kept.
///
/// Read on every request from every event loop, so a read takes no lock: the metrics are an immutable snapshot
/// behind an atomic reference, and a new label set replaces the snapshot (under a lock, rarely). A replaced snapshot
/// is never freed — a reader on another thread may still be looking at it — which stays small: label sets are
/// few and bounded (routes, statuses, auth reasons, limits, error kinds), so the snapshots left behind hold a few
/// thousand entries at most over a process's life. A lock per read made both event loops pull one cache line back
/// and forth on each of a request's five metrics.
final class LabeledFamily<Key: Hashable & Sendable, Metric: Sendable>: Sendable {
    private final class Snapshot: Sendable {
        let metrics: [Key: Metric]

        init(_ metrics: [Key: Metric]) {
            self.metrics = metrics
        }
    }

    private let make: @Sendable (Key) -> Metric
    /// The current snapshot, retained once (never released while current).
    private let current: Atomic<Unmanaged<Snapshot>>
    private let adding = Mutex(())

    init(make: @escaping @Sendable (Key) -> Metric) {
        self.make = make
        self.current = Atomic(Unmanaged.passRetained(Snapshot([:])))
    }

    deinit {
        self.current.load(ordering: .acquiring).release()
    }

    func get(_ key: Key) -> Metric {
        if let metric = self.current.load(ordering: .acquiring).takeUnretainedValue().metrics[key] { return metric }
        return self.adding.withLock { _ in
            let snapshot = self.current.load(ordering: .acquiring).takeUnretainedValue()
            if let existing = snapshot.metrics[key] { return existing }
            let metric = self.make(key)
            var metrics = snapshot.metrics
            metrics[key] = metric
            // The old snapshot stays allocated (see above).
            self.current.store(Unmanaged.passRetained(Snapshot(metrics)), ordering: .releasing)
            return metric
        }
    }
}
