import CoreMetrics
import Prometheus
import Revocation

/// The swift-metrics factory the library modules (OpenAI, StoryFunctions) count through: swift-prometheus's, but
/// with a `# HELP` line for every family (swift-metrics has no place for one, and Prometheus's conventions want it).
/// The known families have their own text; any other gets a generic one.
struct DescribedMetricsFactory: MetricsFactory {
    /// The families the library modules make, and what they count.
    static let help: [String: String] = [
        "storygate_openai_call_duration_seconds":
            "OpenAI calls from the first attempt to the answer, retries included, by endpoint and outcome (ok or the error kind).",
        "storygate_openai_retries_total": "OpenAI attempts after the first, by endpoint.",
        "storygate_openai_attempt_errors_total": "Failed OpenAI attempts, by endpoint and HTTP status (none: no answer).",
        "storygate_openai_tokens_total": "Tokens the AI functions' chat calls used, by function and type (prompt or completion).",
    ].merging(RevocationMetrics.help) { first, _ in first }

    let registry: PrometheusCollectorRegistry
    let durationBuckets: [Duration]
    let valueBuckets: [Double] = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000]

    /// The family's name with its help text.
    static func descriptor(_ label: String, _ kind: String) -> MetricNameDescriptor {
        GatewayMetrics.descriptor(label, Self.help[label] ?? "A \(kind) recorded through swift-metrics.")
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        self.registry.makeCounter(descriptor: Self.descriptor(label, "counter"), labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        self.registry.makeCounter(descriptor: Self.descriptor(label, "counter"), labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return self.registry.makeGauge(descriptor: Self.descriptor(label, "gauge"), labels: dimensions) }
        return self.registry.makeValueHistogram(descriptor: Self.descriptor(label, "histogram"), labels: dimensions, buckets: self.valueBuckets)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        self.registry.makeGauge(descriptor: Self.descriptor(label, "gauge"), labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        self.registry.makeDurationHistogram(descriptor: Self.descriptor(label, "duration histogram"), labels: dimensions, buckets: self.durationBuckets)
    }

    func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { self.registry.unregisterCounter(counter) }
    }

    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { self.registry.unregisterCounter(counter) }
    }

    func destroyRecorder(_ handler: any RecorderHandler) {
        switch handler {
        case let gauge as Prometheus.Gauge: self.registry.unregisterGauge(gauge)
        case let histogram as Histogram<Double>: self.registry.unregisterValueHistogram(histogram)
        default: break
        }
    }

    func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { self.registry.unregisterGauge(gauge) }
    }

    func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? Histogram<Duration> { self.registry.unregisterDurationHistogram(histogram) }
    }
}
