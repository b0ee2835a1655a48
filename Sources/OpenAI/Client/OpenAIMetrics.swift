import CoreMetrics

/// What ``OpenAIClient`` counts, through swift-metrics (the caller chooses the backend):
///
/// - `storygate_openai_call_duration_seconds{endpoint, outcome}`: a whole call, retries included; `outcome` is
///   `ok` or the error kind (`timeout`, `rate_limited`, `upstream`, …).
/// - `storygate_openai_retries_total{endpoint}`: attempts after the first.
/// - `storygate_openai_attempt_errors_total{endpoint, status}`: failed attempts by HTTP status (`none`: no answer).
struct OpenAIMetrics: Sendable {
    let factory: any MetricsFactory

    func callFinished(_ endpoint: OpenAIEndpoint, outcome: String, duration: Duration) {
        let (seconds, attoseconds) = duration.components
        Timer(
            label: "storygate_openai_call_duration_seconds", dimensions: [("endpoint", endpoint.path), ("outcome", outcome)],
            factory: self.factory
        ).recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    func retried(_ endpoint: OpenAIEndpoint) {
        Counter(label: "storygate_openai_retries_total", dimensions: [("endpoint", endpoint.path)], factory: self.factory).increment()
    }

    func attemptFailed(_ endpoint: OpenAIEndpoint, status: Int?) {
        Counter(
            label: "storygate_openai_attempt_errors_total",
            dimensions: [("endpoint", endpoint.path), ("status", status.map(String.init) ?? "none")], factory: self.factory
        ).increment()
    }
}
