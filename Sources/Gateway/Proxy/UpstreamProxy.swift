import GatewayConfig
import HTTPTypes
import IDTokens
import Logging
import NIOCore
import Prometheus
public import ServiceLifecycle
import Synchronization
import UpstreamClient

/// Forwards requests to upstream HTTP services (routes with `upstream:`), after the gateway's own authentication
/// and rate limits. Owns the keep-alive connection pools (one per upstream, shared by the routes to it): a
/// `Service` so that they are closed after the server has stopped (the ServiceGroup stops services in reverse order).
public struct UpstreamProxy: Service {
    let settings: ProxySettings
    let trustedProxies: [IPAddressRange]
    /// The body limit of routes that set none (`server.max_body_bytes`).
    let defaultMaxBodyBytes: Int
    let identityHeaders: [HTTPField.Name]
    /// Stripped from every forwarded request, whether or not this gateway signs assertions itself.
    let assertionHeader: HTTPField.Name
    /// The key and header of the assertions this gateway signs (nil: none).
    let assertion: IdentityAssertionVerifier?
    private let pools: Pools
    let metrics: GatewayMetrics
    let logger: Logger

    /// - Throws: when a configured identity or assertion header is not a valid field name, or the assertion
    ///   secret is shorter than 32 bytes.
    init(settings: ProxySettings, trustedProxies: [IPAddressRange], defaultMaxBodyBytes: Int, metrics: GatewayMetrics, logger: Logger) throws(ConfigurationError) {
        try self.init(
            settings: settings, trustedProxies: trustedProxies, defaultMaxBodyBytes: defaultMaxBodyBytes, pools: Pools(), metrics: metrics, logger: logger
        )
    }

    private init(
        settings: ProxySettings, trustedProxies: [IPAddressRange], defaultMaxBodyBytes: Int, pools: Pools, metrics: GatewayMetrics, logger: Logger
    ) throws(ConfigurationError) {
        self.metrics = metrics
        self.settings = settings
        self.trustedProxies = trustedProxies
        self.defaultMaxBodyBytes = defaultMaxBodyBytes
        self.identityHeaders = try settings.identityHeaders.map { text throws(ConfigurationError) in
            guard let name = HTTPField.Name(text) else {
                throw ConfigurationError(variable: "proxy.identity_headers", message: "has an entry that is not a header name: '\(text.prefix(60))'")
            }
            return name
        }
        self.assertionHeader = try IdentityAssertionVerifier.headerName(settings.assertionHeader)
        self.assertion = try IdentityAssertionVerifier(settings: settings)
        self.logger = logger
        self.pools = pools
    }

    /// This proxy with a reloaded configuration's header rules and keys, on the same connection pools: an upstream
    /// that stays keeps its connections. (The pools' own settings, timeouts and sizes, need a restart.)
    func reconfigured(settings: ProxySettings, trustedProxies: [IPAddressRange], defaultMaxBodyBytes: Int) throws(ConfigurationError) -> UpstreamProxy {
        try UpstreamProxy(
            settings: settings, trustedProxies: trustedProxies, defaultMaxBodyBytes: defaultMaxBodyBytes, pools: self.pools,
            metrics: self.metrics, logger: self.logger
        )
    }

    /// Closes the pools of upstreams no route names any more: their idle connections now, the others once the
    /// requests on them are done.
    func retire(keeping upstreams: [UpstreamURL]) {
        self.pools.retire(keeping: Set(upstreams.map(Pools.key)))
    }

    /// The route as its exchanges forward it; nil when an https upstream has no TLS context (its requests are 502s).
    func route(for route: RouteConfiguration, upstream: UpstreamURL) -> UpstreamRoute? {
        let pool: UpstreamPool
        do {
            pool = try self.pools.pool(for: upstream, settings: self.settings)
        } catch {
            self.logger.error("no TLS context for an https upstream", metadata: ["route": "\(route.name)"])
            return nil
        }
        let upstreamRoute = UpstreamRoute(
            name: route.name,
            target: UpstreamTarget(upstream: upstream, path: route.path),
            headers: UpstreamRequestHeaders(
                identityHeaders: self.identityHeaders,
                assertionHeader: self.assertionHeader,
                assertionKey: self.assertion?.key,
                forwardAuthorization: route.forwardAuthorization,
                trustedProxies: self.trustedProxies
            ),
            timeout: .interval(seconds: route.timeoutSeconds),
            maxBodyBytes: route.maxBodyBytes ?? self.defaultMaxBodyBytes,
            pool: pool, metrics: self.metrics, logger: self.logger
        )
        return upstreamRoute
    }

    /// Waits for graceful shutdown (the server has stopped by then), then closes the pooled connections.
    public func run() async throws {
        try? await gracefulShutdown()
        self.pools.shutdown()
    }

    /// One pool per upstream origin.
    private final class Pools: Sendable {
        private let pools = Mutex<[String: UpstreamPool]>([:])

        static func key(_ upstream: UpstreamURL) -> String {
            "\(upstream.scheme)://\(upstream.host):\(upstream.port)"
        }

        func pool(for upstream: UpstreamURL, settings: ProxySettings) throws -> UpstreamPool {
            let key = Self.key(upstream)
            if let pool = self.pools.withLock({ $0[key] }) { return pool }
            let pool = UpstreamPool(
                host: upstream.host, port: upstream.port, tls: upstream.scheme == "https" ? try UpstreamPool.systemTrustTLS() : nil,
                connectTimeout: .interval(seconds: settings.connectTimeoutSeconds), maxIdlePerEventLoop: settings.maxConnectionsPerUpstream,
                idleTimeout: .interval(seconds: settings.idleTimeoutSeconds)
            )
            return self.pools.withLock { pools in
                if let existing = pools[key] { return existing }
                pools[key] = pool
                return pool
            }
        }

        func retire(keeping keys: Set<String>) {
            let retired = self.pools.withLock { pools in
                let gone = pools.filter { !keys.contains($0.key) }
                for key in gone.keys { pools[key] = nil }
                return Array(gone.values)
            }
            for pool in retired { pool.shutdown() }
        }

        func shutdown() {
            for pool in self.pools.withLock({ Array($0.values) }) { pool.shutdown() }
        }
    }
}

/// One upstream route as its exchanges (``ProxyExchange``) forward it, built once with the route: where its requests
/// go, the header rules, the limits, and the upstream's connection pool. A class, so a request holds one reference, not a copy.
final class UpstreamRoute: Sendable {
    let name: String
    let target: UpstreamTarget
    let headers: UpstreamRequestHeaders
    /// How long the upstream may take to start answering (504 after).
    let timeout: TimeAmount
    /// The request body limit (a chunked body is cut off with 413 past it).
    let maxBodyBytes: Int
    /// The upstream's connections, shared with the other routes to it.
    let pool: UpstreamPool
    let metrics: GatewayMetrics
    /// This route's upstream answer times (``GatewayMetrics/upstreamLatency(route:)``), held: recorded on every request.
    let upstreamLatency: DurationHistogram
    let logger: Logger

    init(
        name: String, target: UpstreamTarget, headers: UpstreamRequestHeaders, timeout: TimeAmount, maxBodyBytes: Int,
        pool: UpstreamPool, metrics: GatewayMetrics, logger: Logger
    ) {
        self.name = name
        self.target = target
        self.headers = headers
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
        self.pool = pool
        self.metrics = metrics
        self.upstreamLatency = metrics.upstreamLatency(route: name)
        self.logger = logger
    }

    /// Why an exchange failed before the response head.
    enum Failure: Error {
        case unreachable(String)
        case timeout
        case tooLarge
        case clientBodyFailed
        case clientBodyTimedOut
    }

    /// The error a failed exchange is answered with; upstream faults are counted and logged.
    func answer(_ failure: Failure, requestID: String) -> GatewayError {
        switch failure {
        case .tooLarge:
            return GatewayError.payloadTooLarge(limit: self.maxBodyBytes)
        case .clientBodyFailed:
            return GatewayError.unreadableRequestBody()
        case .clientBodyTimedOut:
            return GatewayError.requestTimeout()
        case .timeout:
            self.metrics.upstreamFailed(route: self.name, kind: "timeout")
            self.logger.debug("upstream timeout", metadata: ["route": "\(self.name)", "request_id": "\(requestID)"])
            return GatewayError.upstreamTimeout()
        case .unreachable(let reason):
            self.metrics.upstreamFailed(route: self.name, kind: "unreachable")
            self.logger.debug("upstream unreachable", metadata: ["route": "\(self.name)", "request_id": "\(requestID)", "reason": "\(reason)"])
            return GatewayError.upstreamUnreachable(reason: reason)
        }
    }

    /// Whether a request that failed on a reused connection, before any answer, may be sent once more on a new
    /// one. A pooled connection the upstream closed meanwhile fails that way, but so does one the upstream closed
    /// after it had received, perhaps acted on, the request: a proxy must not automatically retry a non-idempotent
    /// request (RFC 9112 §9.3.1), so only the idempotent methods of RFC 9110 §9.2.2 are tried again (HAProxy's
    /// `retry-on` and Go's transport draw the same line), and only without a body (it is not kept for a replay).
    static func retriesOnStaleConnection(_ method: HTTPRequest.Method) -> Bool {
        switch method {
        case .get, .head, .options, .trace, .put, .delete: true
        default: false
        }
    }

    /// An error's type as a snake_case label (`IOError` → `ioerror`), for `unreachable` reasons.
    static func label(_ error: any Error) -> String {
        String("\(type(of: error))".lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}
