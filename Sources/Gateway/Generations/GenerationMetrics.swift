import Prometheus

/// The generations' metrics: idempotency outcomes, and the jobs' lifecycle, queue and times.
final class GenerationMetrics: Sendable {
    private let idempotency: LabeledFamily<String, Prometheus.Counter>
    private let jobs: LabeledFamily<String, Prometheus.Counter>
    let queueDepth: Prometheus.Gauge
    private let queueWait: LabeledFamily<String, DurationHistogram>
    private let runTime: LabeledFamily<String, DurationHistogram>

    init(registry: PrometheusCollectorRegistry) {
        let idempotency = (
            "storygate_idempotency_requests_total",
            "Requests with an Idempotency-Key by outcome: started, replayed, joined, in_flight, reused, store_error, unguarded."
        )
        self.idempotency = LabeledFamily { outcome in
            registry.makeCounter(descriptor: GatewayMetrics.descriptor(idempotency), labels: [("outcome", outcome)])
        }
        let jobs = ("storygate_jobs_total", "Jobs by event: created, succeeded, failed, cancelled, reclaimed.")
        self.jobs = LabeledFamily { event in
            registry.makeCounter(descriptor: GatewayMetrics.descriptor(jobs), labels: [("event", event)])
        }
        self.queueDepth = registry.makeGauge(
            descriptor: GatewayMetrics.descriptor("storygate_jobs_queue_depth", "Jobs waiting for a worker, as this replica last read it.")
        )
        let wait = ("storygate_jobs_queue_wait_seconds", "Time from a job's creation to a worker taking it, by function.")
        self.queueWait = LabeledFamily { function in
            registry.makeDurationHistogram(descriptor: GatewayMetrics.descriptor(wait), labels: [("function", function)], buckets: Self.buckets)
        }
        let run = ("storygate_jobs_run_seconds", "Time a worker ran a job, by function.")
        self.runTime = LabeledFamily { function in
            registry.makeDurationHistogram(descriptor: GatewayMetrics.descriptor(run), labels: [("function", function)], buckets: Self.buckets)
        }
        for outcome in ["started", "replayed", "joined", "in_flight", "reused", "store_error", "unguarded"] { _ = self.idempotency.get(outcome) }
        for event in ["created", "succeeded", "failed", "cancelled", "reclaimed"] { _ = self.jobs.get(event) }
    }

    /// 10 ms to 10 minutes.
    static let buckets: [Duration] = [
        .milliseconds(10), .milliseconds(50), .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5),
        .seconds(10), .seconds(30), .seconds(60), .seconds(120), .seconds(300), .seconds(600),
    ]

    func idempotency(_ outcome: String) { self.idempotency.get(outcome).increment() }
    func job(_ event: String) { self.jobs.get(event).increment() }
    func queueWait(_ function: String, _ duration: Duration) { self.queueWait.get(function).record(duration) }
    func ran(_ function: String, _ duration: Duration) { self.runTime.get(function).record(duration) }
}
