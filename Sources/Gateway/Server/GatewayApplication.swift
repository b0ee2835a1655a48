public import CurlHTTP
public import IDTokens
public import Logging
import NIOPosix
public import OpenAI
import RateLimiting
public import ServiceLifecycle
public import StoryFunctions
import UnixSignals

/// The whole gateway built from a configuration: its components, and the services to run in one ServiceGroup.
public struct GatewayApplication: Sendable {
    public let configuration: GatewayConfiguration
    public let curl: CurlClient
    public let certificateStores: [CertificateStore]
    public let authenticator: Authenticator
    public let rateLimiter: RateLimiter
    /// OpenAI over libcurl, or the offline provider (dev without a key).
    public let provider: any AIProvider
    public let media: any MediaStore
    public let server: GatewayServer
    public let proxy: UpstreamProxy
    /// The application's metrics registry (served at `/metrics`).
    public let metrics: GatewayMetrics
    /// Set when graceful shutdown starts (`/readyz` is 503 from then on).
    public let drain = DrainState()
    private let backgroundServices: [any Service]
    private let logger: Logger

    /// - Parameters:
    ///   - extraRoutes: routes added to the built-in table (an embedding application's own handlers).
    ///   - onServerRunning: called with the bound port once the listener is up (tests bind port 0).
    ///   - metrics: the registry to count in (a new one by default).
    ///   - accessLogger: where the per-request lines go (default: `logger`); `configuration.accessLog` false turns them off.
    ///   - accessLogOutput: overrides `accessLogger` (`storygate serve` writes the lines as JSON straight to standard error).
    ///   - googleAccessToken: a Google service-account access token, for consuming limited-use App Check tokens.
    /// - Throws: when a route names a rate limit that is not configured, or the Redis URL is unusable.
    public init(
        configuration: GatewayConfiguration,
        logger: Logger,
        certificatePolicy: CertificateRefreshPolicy = .init(),
        extraRoutes: [Route] = [],
        metrics: GatewayMetrics = GatewayMetrics(),
        accessLogger: Logger? = nil,
        accessLogOutput: AccessLogOutput? = nil,
        googleAccessToken: (@Sendable () async throws -> String)? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws(ConfigurationError) {
        try configuration.validateForStart(extraRoutes: extraRoutes)
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
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
        let appCheck = AppCheckComponents.make(
            configuration: configuration, curl: self.curl, metrics: metrics, policy: certificatePolicy, accessToken: googleAccessToken, logger: logger
        )
        // The App Check JWKS is kept like the certificate sets: run, counted and aged with them.
        self.certificateStores = projects.map(\.certificates) + (appCheck.map { [$0.keys] } ?? [])
        let tokens = IDTokenAuthenticator(projects: projects, cache: TokenCache(capacity: configuration.tokenCacheSize))
        let failureLimiter = configuration.authFailureLimit.map { AuthFailureLimiter(limit: $0) }
        self.authenticator = Authenticator(
            tokens: tokens, trustUserIDHeader: configuration.mode == .dev, failureLimiter: failureLimiter,
            assertions: configuration.proxy.acceptAssertions ? try IdentityAssertionVerifier(settings: configuration.proxy) : nil
        )

        // Rate limits: in memory, or Redis shared by every gateway with a local bucket behind it.
        let localBuckets = InMemoryRateLimitStore()
        var background: [any Service] = [RateLimitSweeper(stores: [localBuckets] + (failureLimiter.map { [$0.store] } ?? []))]
        let store: any RateLimitStore
        var requiredRedis: RedisRateLimitStore?
        var failover: FailoverRateLimitStore?
        if let redisURL = configuration.redisURL {
            var redisConfiguration = RedisRateLimitStore.Configuration(url: redisURL)
            redisConfiguration.poolSize = configuration.redisPoolSize
            redisConfiguration.timeout = .milliseconds(configuration.redisTimeoutMilliseconds)
            redisConfiguration.cluster = configuration.redisCluster
            // Keys carry the logs' uid hash: no raw uid in Redis, and users spread over a cluster's slots.
            redisConfiguration.keyHash = UserHash.logIdentifier
            let redis: RedisRateLimitStore
            do {
                redis = try RedisRateLimitStore(configuration: redisConfiguration, logger: logger)
            } catch {
                throw ConfigurationError(variable: "REDIS_URL", message: "cannot be used: \(error)")
            }
            background.append(redis)
            // Failing closed, the gateway cannot answer limited routes without Redis: not ready until connected.
            if configuration.rateLimitFailurePolicy == .failClosed { requiredRedis = redis }
            let failoverStore = FailoverRateLimitStore(
                primary: redis, fallback: localBuckets, policy: configuration.rateLimitFailurePolicy, logger: logger
            )
            failover = failoverStore
            store = failoverStore
        } else {
            store = localBuckets
        }
        self.rateLimiter = RateLimiter(limits: configuration.rateLimits, store: store, metrics: metrics, logger: logger)
        self.backgroundServices = background

        // The AI functions: OpenAI when a key is configured; in dev without one, the offline provider.
        if let key = configuration.openAIAPIKey {
            var openAI = OpenAIConfiguration(apiKey: APIKey(key.value), baseURL: configuration.openAIBaseURL)
            if let seconds = configuration.openAITimeoutSeconds { openAI.deadlines = .all(.seconds(seconds)) }
            self.provider = OpenAIClient(configuration: openAI, http: self.curl, logger: logger, metricsFactory: metrics.factory)
        } else if configuration.mode == .dev {
            self.provider = OfflineProvider()
        } else {
            throw ConfigurationError(
                variable: "OPENAI_API_KEY",
                message: "is required when ENV=prod: the built-in AI functions call OpenAI (set it, or OPENAI_API_KEY_FILE to a file holding it)"
            )
        }
        // Media: on this replica's disk, or in an S3 bucket every replica shares (on the same libcurl client).
        var mediaDelivery = MediaHandler.Delivery.proxy
        if let s3 = try configuration.media.s3Settings() {
            let store = S3MediaStore(settings: s3, http: self.curl, logger: logger, metricsFactory: metrics.factory)
            if configuration.media.delivery == .redirect {
                let ttl = configuration.media.urlTTLSeconds
                mediaDelivery = .redirect { key in try await store.presignedURL(key, expiresSeconds: ttl, now: Int(WallClock.now())) }
            }
            self.media = store
        } else {
            self.media = FileMediaStore(directory: configuration.mediaDirectory)
        }
        let functions = StoryFunctionsService(
            provider: self.provider, media: self.media, models: configuration.models, logger: logger, metricsFactory: metrics.factory
        )

        self.proxy = try UpstreamProxy(
            settings: configuration.proxy, trustedProxies: configuration.trustedProxies,
            defaultMaxBodyBytes: configuration.server.maxBodyBytes, metrics: metrics, logger: logger
        )
        let builder = RouteBuilder(
            functions: functions, media: self.media, mediaDelivery: mediaDelivery,
            isReady: { [requiredRedis, drain] in
                !drain.isDraining && tokens.isReady && (appCheck?.isReady ?? true) && (requiredRedis.map { $0.liveConnectionCount > 0 } ?? true)
            },
            metrics: MetricsHandler.handler(metrics: metrics, certificateStores: self.certificateStores, failover: failover),
            openAPI: OpenAPIHandler.handler(),
            proxy: self.proxy, limits: configuration.server,
            appCheck: appCheck.map { ($0.gate, configuration) }
        )
        let routes = RouteTable(configuration.routes.map(builder.route) + extraRoutes)
        for route in routes.routes {
            guard let rule = route.rateLimit else { continue }
            guard self.rateLimiter.limits[rule.name] != nil else {
                throw ConfigurationError(variable: "routes", message: "route \(route.name) names an unknown rate limit '\(rule.name)'")
            }
            guard route.auth == .required else {
                throw ConfigurationError(variable: "routes", message: "route \(route.name) has a per-user rate limit, so it needs auth: required")
            }
        }
        self.server = GatewayServer(
            host: configuration.host,
            port: configuration.port,
            limits: configuration.server,
            responder: GatewayResponder(
                routes: routes, authenticator: self.authenticator, rateLimiter: self.rateLimiter,
                trustedProxies: configuration.trustedProxies, metrics: metrics,
                accessLog: configuration.accessLog ? AccessLog(output: accessLogOutput ?? .logger(accessLogger ?? logger)) : nil, logger: logger
            ),
            drain: self.drain,
            logger: logger,
            onServerRunning: onServerRunning
        )
    }

    /// Every long-lived component in start order; a ServiceGroup stops them in reverse (server first, curl last).
    public var services: [any Service] {
        [self.curl, self.proxy] + self.backgroundServices + self.certificateStores + [self.server]
    }

    /// Runs until SIGTERM or SIGINT, then shuts down gracefully.
    public func run() async throws {
        let build = BuildInfo.current
        self.logger.notice("storygate starting", metadata: ["version": "\(build.version)", "commit": "\(build.commit ?? "unknown")"])
        let removed = self.configuration.server.removedSettings
        if !removed.isEmpty {
            self.logger.warning(
                "\(removed.joined(separator: ", ")) \(removed.count == 1 ? "was" : "were") removed and \(removed.count == 1 ? "is" : "are") ignored: every request takes the one edge path"
            )
        }
        if self.configuration.mode == .dev, self.configuration.openAIAPIKey == nil {
            self.logger.warning("DEV MODE: no OPENAI_API_KEY, so the AI functions answer from the built-in offline provider.")
        }
        if self.configuration.mode == .dev {
            self.logger.warning(
                "DEV MODE: X-User-Id is trusted without a token and the dev certificate in \(self.configuration.devCertsDirectory) is trusted for project \(GatewayConfiguration.devProjectID). Never run dev mode in production."
            )
        }
        var configuration = ServiceGroupConfiguration(
            services: self.services.map { .init(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: self.logger
        )
        // Requests in flight get the grace period; then what is left is cancelled, and the rest shut down.
        configuration.maximumGracefulShutdownDuration = .milliseconds(Int64(self.configuration.server.shutdownGraceSeconds * 1000))
        configuration.maximumCancellationDuration = .seconds(5)
        let group = ServiceGroup(configuration: configuration)
        do {
            try await group.run()
        } catch where self.drain.isDraining {
            // The grace period ran out with requests still in flight: they were cut off, which is the contract.
            self.logger.warning("shutdown grace period expired; remaining requests were cancelled", metadata: ["error": "\(type(of: error))"])
        }
        self.logger.notice("storygate stopped")
    }
}
