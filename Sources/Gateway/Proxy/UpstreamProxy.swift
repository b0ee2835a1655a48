import HTTPTypes
import IDTokens
import Logging
import NIOCore
public import ServiceLifecycle
import Synchronization

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
        self.pools = Pools()
    }

    /// The route's async handler (any request), and how the direct path forwards its body-less requests.
    func handlers(for route: RouteConfiguration, upstream: UpstreamURL) -> (RouteHandler, DirectForwarder?) {
        let pools: (async: UpstreamPool, direct: DirectUpstreamPool)
        do {
            pools = try self.pools.pools(for: upstream, settings: self.settings)
        } catch {
            self.logger.error("no TLS context for an https upstream", metadata: ["route": "\(route.name)"])
            return ({ _, _ in throw GatewayError.upstreamUnreachable(reason: "tls_unavailable") }, nil)
        }
        let target = UpstreamTarget(upstream: upstream, path: route.path)
        let headers = UpstreamRequestHeaders(
            identityHeaders: self.identityHeaders,
            assertionHeader: self.assertionHeader,
            assertionKey: self.assertion?.key,
            forwardAuthorization: route.forwardAuthorization,
            trustedProxies: self.trustedProxies
        )
        let timeout = TimeAmount.interval(seconds: route.timeoutSeconds)
        let forwarder = UpstreamForwarder(
            routeName: route.name, target: target, headers: headers, pool: pools.async, timeout: timeout,
            maxBodyBytes: route.maxBodyBytes ?? self.defaultMaxBodyBytes, metrics: self.metrics, logger: self.logger
        )
        let direct = DirectForwarder(
            routeName: route.name, target: target, headers: headers, pool: pools.direct, timeout: timeout, metrics: self.metrics,
            logger: self.logger
        )
        return ({ request, context in try await forwarder.forward(request, context: context) }, direct)
    }

    /// Waits for graceful shutdown (the server has stopped by then), then closes the pooled connections.
    public func run() async throws {
        try? await gracefulShutdown()
        self.pools.shutdown()
    }

    /// One pair of pools per upstream origin: the async path's and the direct path's.
    private final class Pools: Sendable {
        private let pools = Mutex<[String: (async: UpstreamPool, direct: DirectUpstreamPool)]>([:])

        func pools(for upstream: UpstreamURL, settings: ProxySettings) throws -> (async: UpstreamPool, direct: DirectUpstreamPool) {
            let key = "\(upstream.scheme)://\(upstream.host):\(upstream.port)"
            if let pools = self.pools.withLock({ $0[key] }) { return pools }
            let connectTimeout = TimeAmount.interval(seconds: settings.connectTimeoutSeconds)
            let idleTimeout = TimeAmount.interval(seconds: settings.idleTimeoutSeconds)
            let asyncPool = try UpstreamPool(
                upstream: upstream, connectTimeout: connectTimeout, maxIdlePerEventLoop: settings.maxConnectionsPerUpstream,
                idleTimeout: idleTimeout
            )
            let directPool = DirectUpstreamPool(
                upstream: upstream, connectTimeout: connectTimeout, maxIdlePerEventLoop: settings.maxConnectionsPerUpstream,
                idleTimeout: idleTimeout, tls: asyncPool.tls
            )
            return self.pools.withLock { pools in
                if let existing = pools[key] { return existing }
                pools[key] = (asyncPool, directPool)
                return (asyncPool, directPool)
            }
        }

        func shutdown() {
            for (asyncPool, directPool) in self.pools.withLock({ Array($0.values) }) {
                asyncPool.shutdown()
                directPool.shutdown()
            }
        }
    }
}

/// What the direct path needs to forward one route's requests (built with the route; a class, so that a request
/// holds one reference instead of copying it).
final class DirectForwarder: Sendable {
    let routeName: String
    let target: UpstreamTarget
    let headers: UpstreamRequestHeaders
    let pool: DirectUpstreamPool
    /// How long the upstream may take to start answering (504 after).
    let timeout: TimeAmount
    let metrics: GatewayMetrics
    let logger: Logger

    init(
        routeName: String, target: UpstreamTarget, headers: UpstreamRequestHeaders, pool: DirectUpstreamPool, timeout: TimeAmount,
        metrics: GatewayMetrics, logger: Logger
    ) {
        self.routeName = routeName
        self.target = target
        self.headers = headers
        self.pool = pool
        self.timeout = timeout
        self.metrics = metrics
        self.logger = logger
    }
}
