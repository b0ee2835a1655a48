import HTTPTypes
import HummingbirdCore
import IDTokens
import NIOCore
import Prometheus
import RateLimiting

/// `GET /metrics`: the registry in the Prometheus text format (version 0.0.4), plus what is read at scrape time
/// from components that keep their own counts: certificate fetches and the age of each project's certificate set,
/// the Redis failover counts, and the process metrics (``ProcessMetrics``).
enum MetricsHandler {
    static func handler(
        metrics: GatewayMetrics, certificateStores: [CertificateStore], failover: FailoverRateLimitStore?
    ) -> RouteHandler {
        { _, _ in
            var bytes = metrics.registry.emitToBuffer()
            bytes.append(contentsOf: Self.scrapeTimeLines(certificateStores: certificateStores, failover: failover, now: WallClock.now()).utf8)
            bytes.append(contentsOf: ProcessMetrics.lines().utf8)
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
    }

    static func scrapeTimeLines(certificateStores: [CertificateStore], failover: FailoverRateLimitStore?, now: Double) -> String {
        var text = "# HELP storygate_cert_fetches_total Certificate set fetches, by project and result.\n"
        text += "# TYPE storygate_cert_fetches_total counter\n"
        for store in certificateStores {
            let counters = store.fetchCounters
            text += "storygate_cert_fetches_total{project=\"\(store.projectID)\",result=\"ok\"} \(counters.succeeded)\n"
            text += "storygate_cert_fetches_total{project=\"\(store.projectID)\",result=\"failed\"} \(counters.failed)\n"
        }
        text += "# HELP storygate_cert_set_age_seconds Seconds since the certificate set in use was fetched (-1: none loaded).\n"
        text += "# TYPE storygate_cert_set_age_seconds gauge\n"
        for store in certificateStores {
            let age = store.refreshState.fetchedAt.map { max(0, now - $0) } ?? -1
            text += "storygate_cert_set_age_seconds{project=\"\(store.projectID)\"} \(age)\n"
        }
        if let failover {
            text += "# HELP storygate_rate_limit_store_errors_total Rate-limit checks on which Redis failed.\n"
            text += "# TYPE storygate_rate_limit_store_errors_total counter\n"
            text += "storygate_rate_limit_store_errors_total \(failover.failureCount)\n"
            text += "# HELP storygate_rate_limit_fallbacks_total Checks answered by the local bucket because Redis failed.\n"
            text += "# TYPE storygate_rate_limit_fallbacks_total counter\n"
            text += "storygate_rate_limit_fallbacks_total \(failover.fallbackCount)\n"
        }
        return text
    }
}
