import HTTPTypes
import HummingbirdCore
import Logging
public import ServiceLifecycle

/// Forwards requests to upstream HTTP services (routes with `upstream:`). Placeholder until the proxy lands.
public struct UpstreamProxy: Service {
    let settings: ProxySettings
    let logger: Logger

    init(settings: ProxySettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
    }

    func handler(for route: RouteConfiguration, upstream: UpstreamURL) -> RouteHandler {
        { _, _ in
            throw GatewayError(status: .badGateway, code: "UPSTREAM_ERROR", message: "The upstream could not be reached.", reason: "upstream_unreachable")
        }
    }

    public func run() async throws {
        try? await gracefulShutdown()
    }
}
