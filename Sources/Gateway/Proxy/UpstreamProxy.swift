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

    func handler(for route: RouteConfiguration, upstream: UpstreamURL) -> RouteHandler {
        let pool: UpstreamPool
        do {
            pool = try self.pools.pool(for: upstream, settings: self.settings)
        } catch {
            self.logger.error("no TLS context for an https upstream", metadata: ["route": "\(route.name)"])
            return { _, _ in throw GatewayError.upstreamUnreachable(reason: "tls_unavailable") }
        }
        let forwarder = UpstreamForwarder(
            routeName: route.name,
            target: UpstreamTarget(upstream: upstream, path: route.path),
            headers: UpstreamRequestHeaders(
                identityHeaders: self.identityHeaders,
                assertionHeader: self.assertionHeader,
                assertionKey: self.assertion?.key,
                forwardAuthorization: route.forwardAuthorization,
                trustedProxies: self.trustedProxies
            ),
            pool: pool,
            timeout: .interval(seconds: route.timeoutSeconds),
            maxBodyBytes: route.maxBodyBytes ?? self.defaultMaxBodyBytes,
            metrics: self.metrics,
            logger: self.logger
        )
        return { request, context in try await forwarder.forward(request, context: context) }
    }

    /// Waits for graceful shutdown (the server has stopped by then), then closes the pooled connections.
    public func run() async throws {
        try? await gracefulShutdown()
        self.pools.shutdown()
    }

    /// One pool per upstream origin.
    private final class Pools: Sendable {
        private let pools = Mutex<[String: UpstreamPool]>([:])

        func pool(for upstream: UpstreamURL, settings: ProxySettings) throws -> UpstreamPool {
            let key = "\(upstream.scheme)://\(upstream.host):\(upstream.port)"
            if let pool = self.pools.withLock({ $0[key] }) { return pool }
            let pool = try UpstreamPool(
                upstream: upstream, connectTimeout: .interval(seconds: settings.connectTimeoutSeconds),
                maxIdlePerEventLoop: settings.maxConnectionsPerUpstream,
                idleTimeout: .interval(seconds: settings.idleTimeoutSeconds)
            )
            return self.pools.withLock { pools in
                if let existing = pools[key] { return existing }
                pools[key] = pool
                return pool
            }
        }

        func shutdown() {
            for pool in self.pools.withLock({ Array($0.values) }) { pool.shutdown() }
        }
    }
}
