public import CurlHTTP
public import IDTokens
public import Logging
public import ServiceLifecycle
import UnixSignals

/// The whole gateway built from a configuration: its components, and the services to run in one ServiceGroup.
public struct GatewayApplication: Sendable {
    public let configuration: GatewayConfiguration
    public let curl: CurlClient
    public let certificateStores: [CertificateStore]
    public let authenticator: Authenticator
    public let server: GatewayServer
    private let logger: Logger

    /// - Parameter onServerRunning: called with the bound port once the listener is up (tests bind port 0).
    public init(
        configuration: GatewayConfiguration,
        logger: Logger,
        certificatePolicy: CertificateRefreshPolicy = .init(),
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.logger = logger
        self.curl = CurlClient(logger: logger)

        var projects: [TrustedProject] = []
        for projectID in configuration.trustedProjectIDs {
            let source: any CertificateSource =
                configuration.mode == .dev && projectID == GatewayConfiguration.devProjectID
                ? FileCertificateSource(path: configuration.devCertsDirectory + "/certs.json")
                : CurlCertificateSource(url: configuration.firebaseCertsURL, client: self.curl)
            let store = CertificateStore(projectID: projectID, source: source, policy: certificatePolicy, logger: logger)
            projects.append(TrustedProject(projectID: projectID, clockSkew: Double(configuration.clockSkewSeconds), certificates: store))
        }
        self.certificateStores = projects.map(\.certificates)
        let tokens = IDTokenAuthenticator(projects: projects, cache: TokenCache(capacity: configuration.tokenCacheSize))
        self.authenticator = Authenticator(tokens: tokens, trustUserIDHeader: configuration.mode == .dev)

        let routes = RouteTable([
            SystemHandlers.health(),
            SystemHandlers.ready(isReady: { tokens.isReady }),
            MeHandler.route(),
        ])
        self.server = GatewayServer(
            host: configuration.host,
            port: configuration.port,
            responder: GatewayResponder(routes: routes, authenticator: self.authenticator, logger: logger),
            logger: logger,
            onServerRunning: onServerRunning
        )
    }

    /// Every long-lived component in start order; a ServiceGroup stops them in reverse (server first, curl last).
    public var services: [any Service] {
        [self.curl] + self.certificateStores + [self.server]
    }

    /// Runs until SIGTERM or SIGINT, then shuts down gracefully.
    public func run() async throws {
        if self.configuration.mode == .dev {
            self.logger.warning(
                "DEV MODE: X-User-Id is trusted without a token and the dev certificate in \(self.configuration.devCertsDirectory) is trusted for project \(GatewayConfiguration.devProjectID). Never run dev mode in production."
            )
        }
        let group = ServiceGroup(
            configuration: .init(
                services: self.services.map { .init(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: self.logger
            )
        )
        try await group.run()
    }
}
