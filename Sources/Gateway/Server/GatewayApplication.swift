public import CurlHTTP
public import GatewayConfig
public import GoogleAuth
public import IDTokens
public import Logging
import Generations
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
    /// The authenticator, rate limiter and AI provider the gateway started with (a reload builds new ones).
    public let authenticator: Authenticator
    /// Access tokens of the service account in `GOOGLE_APPLICATION_CREDENTIALS` (nil when unset), for Google APIs.
    public let googleTokens: ServiceAccountTokenSource?
    /// The revocation check (`REVOCATION_CHECK=on`; nil when off).
    public let revocation: GatewayRevocation?
    public let rateLimiter: RateLimiter
    /// OpenAI over libcurl, or the offline provider (dev without a key).
    public let provider: any AIProvider
    public let media: any MediaStore
    public let server: GatewayServer
    /// The admin listener (`/metrics`, `/healthz`, `/readyz`, `/config`); nil when `ADMIN_PORT=off`.
    public let admin: AdminServer?
    public let proxy: UpstreamProxy
    /// The application's metrics registry (served at `/metrics`).
    public let metrics: GatewayMetrics
    /// Set when graceful shutdown starts (`/readyz` is 503 from then on).
    public let drain = DrainState()
    private let backgroundServices: [any Service]
    /// The runs under way and the job workers: they stop after the listener, before the stores and clients they use.
    private let generationServices: [any Service]
    private let reloader: GatewayReloader
    private let logger: Logger

    /// - Parameters:
    ///   - extraRoutes: routes added to the built-in table (an embedding application's own handlers).
    ///   - onServerRunning: called with the bound port once the listener is up (tests bind port 0).
    ///   - onAdminRunning: the same for the admin listener.
    ///   - source: where the configuration was read from, read again by ``reload()`` (nil: nothing to reload).
    ///   - logLevel: the level the process's log handlers follow, which a reload sets (nil: loggers keep theirs).
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
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in },
        onAdminRunning: @escaping @Sendable (Int) async -> Void = { _ in },
        source: ConfigurationSource? = nil,
        logLevel: LogLevelSetting? = nil
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
        // One Google service account serves the revocation lookups and App Check's replay check.
        let googleTokens = try GatewayRevocation.tokenSource(configuration: configuration, curl: self.curl, logger: logger)
        self.googleTokens = googleTokens
        let appCheck = AppCheckComponents.make(
            configuration: configuration, curl: self.curl, metrics: metrics, policy: certificatePolicy,
            accessToken: googleAccessToken ?? googleTokens.map { tokens in { @Sendable in try await tokens.accessToken() } }, logger: logger
        )
        // The App Check JWKS is kept like the certificate sets: run, counted and aged with them.
        self.certificateStores = projects.map(\.certificates) + (appCheck.map { [$0.keys] } ?? [])
        let tokens = IDTokenAuthenticator(projects: projects, cache: TokenCache(capacity: configuration.tokenCacheSize))
        let failureLimiter = configuration.authFailureLimit.map { AuthFailureLimiter(limit: $0) }
        let revocation = try GatewayRevocation.make(
            configuration: configuration, tokens: self.googleTokens, curl: self.curl, metrics: metrics, logger: logger
        )
        self.revocation = revocation

        // Rate limits: in memory, or Redis shared by every gateway with a local bucket behind it.
        let localBuckets = InMemoryRateLimitStore()
        var background: [any Service] = [RateLimitSweeper(stores: [localBuckets] + (failureLimiter.map { [$0.store] } ?? []))]
        let store: any RateLimitStore
        var requiredRedis: RedisRateLimitStore?
        var failover: FailoverRateLimitStore?
        // Idempotency records and jobs: shared through the limits' Redis connections, or in this process.
        var sharedCommands: RedisCommands?
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
            sharedCommands = redis.commands
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
        if let sharing = revocation?.sharing { background.append(sharing) }
        let retention = Duration.seconds(configuration.jobs.retentionSeconds)
        let generations = GenerationStores(
            idempotency: sharedCommands.map { RedisIdempotencyStore(commands: $0) } ?? InMemoryIdempotencyStore(now: WallClock.now),
            jobs: sharedCommands.map { RedisJobQueue(commands: $0, configuration: .init(retention: retention)) }
                ?? InMemoryJobQueue(retention: Double(configuration.jobs.retentionSeconds), now: WallClock.now),
            runs: GenerationRuns(), metrics: metrics.generations, now: WallClock.now
        )
        let runningJobs = RunningJobs()
        self.backgroundServices = background
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
        self.proxy = try UpstreamProxy(
            settings: configuration.proxy, trustedProxies: configuration.trustedProxies,
            defaultMaxBodyBytes: configuration.server.maxBodyBytes, metrics: metrics, logger: logger
        )
        let isReady: @Sendable () -> Readiness = { [requiredRedis, drain] in
            if drain.isDraining { return .draining }
            let ready = tokens.isReady && (appCheck?.isReady ?? true) && (requiredRedis.map { $0.liveConnectionCount > 0 } ?? true)
            return ready ? .ready : .notReady
        }
        let metricsHandler = MetricsHandler.handler(metrics: metrics, certificateStores: self.certificateStores, failover: failover)
        // What a configuration decides on the request path, built now and again on each reload.
        let builder = RequestPathBuilder(
            tokens: tokens, failureLimiter: failureLimiter, revocation: revocation, store: store, curl: self.curl, media: self.media,
            mediaDelivery: mediaDelivery, isReady: isReady, metricsHandler: metricsHandler, openAPIHandler: OpenAPIHandler.handler(),
            proxy: self.proxy, extraRoutes: extraRoutes, generations: generations, runningJobs: runningJobs, metrics: metrics,
            accessLogOutput: accessLogOutput ?? .logger(accessLogger ?? logger), logger: logger, appCheck: appCheck
        )
        let path = try builder.build(configuration, previous: nil)
        self.authenticator = path.authenticator
        self.rateLimiter = path.rateLimiter
        self.provider = path.provider
        let live = LiveResponder(path.responder)
        let workers = JobWorkers(
            stores: generations, settings: configuration.jobs, running: runningJobs, drain: self.drain,
            service: { live.load().responder.functionCalls?.service ?? path.responder.functionCalls!.service }, logger: logger
        )
        self.generationServices = [generations.runs, workers]
        let reloader = GatewayReloader(source: source, builder: builder, initial: path, live: live, logLevel: logLevel, logger: logger)
        self.reloader = reloader
        self.admin = configuration.admin.map { admin in
            AdminServer(
                host: admin.host, port: admin.port,
                handlers: AdminServer.handlers(
                    metrics: metricsHandler, ready: SystemHandlers.ready(isReady: isReady),
                    configText: { try reloader.configuration.effectiveYAML() }
                ),
                logger: logger, onServerRunning: onAdminRunning
            )
        }
        self.server = GatewayServer(
            host: configuration.host,
            port: configuration.port,
            limits: configuration.server,
            responder: live,
            drain: self.drain,
            logger: logger,
            onServerRunning: onServerRunning
        )
    }

    /// The configuration in effect: the one the gateway started with, as the last reload changed it.
    public var currentConfiguration: GatewayConfiguration {
        self.reloader.configuration
    }

    /// Reads the configuration again from its source and applies what can change without a restart (SIGHUP does
    /// this): routes, rate limits, log level and access log, trusted proxies, OpenAI settings and key, the proxy's
    /// identity headers and assertion keys. Connections stay open and take up the new configuration at their next
    /// request. An invalid configuration is refused, logged, and the running one keeps serving.
    @discardableResult
    public func reload() -> ReloadOutcome {
        self.reloader.reload()
    }

    /// Every long-lived component in start order; a ServiceGroup stops them in reverse (server first, curl last).
    /// The admin listener stops after the public one: it can be scraped while requests drain.
    public var services: [any Service] {
        [self.curl, self.proxy] + self.backgroundServices + self.certificateStores + (self.admin.map { [$0] } ?? []) + self.generationServices
            + [self.server]
    }

    /// Runs until SIGTERM or SIGINT, then shuts down gracefully; SIGHUP reloads the configuration (``reload()``).
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
        // SIGHUP reloads the configuration; the reload service stops first.
        let reloads = await ReloadSignalService.trapping { [reloader] in _ = reloader.reload() }
        var configuration = ServiceGroupConfiguration(
            services: (self.services + [reloads]).map { .init(service: $0) },
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
