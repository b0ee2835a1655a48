import CurlHTTP
import GatewayConfig
import Generations
import IDTokens
import Logging
import OpenAI
import RateLimiting
import StoryFunctions

/// The parts of the request path a configuration decides (route table, rate limits, authenticator, proxy rules,
/// AI provider, access log), in the one ``GatewayResponder`` that answers with them.
struct RequestPath: Sendable {
    let configuration: GatewayConfiguration
    let responder: GatewayResponder
    let authenticator: Authenticator
    let rateLimiter: RateLimiter
    let proxy: UpstreamProxy
    let provider: any AIProvider
}

/// Builds a ``RequestPath`` from a configuration, at start and on every reload, around what lives as long as the
/// process: the certificate stores, the rate-limit store, the connection pools, the curl client, the media store.
struct RequestPathBuilder: Sendable {
    let tokens: IDTokenAuthenticator
    let failureLimiter: AuthFailureLimiter?
    /// The revocation check, built once: its cached states and Redis subscription outlive a reload.
    let revocation: GatewayRevocation?
    let store: any RateLimitStore
    let curl: CurlClient
    let media: any MediaStore
    let mediaDelivery: MediaHandler.Delivery
    let isReady: @Sendable () -> Readiness
    let metricsHandler: RouteHandler
    let openAPIHandler: RouteHandler
    /// The proxy the ServiceGroup runs: every rebuilt one shares its pools.
    let proxy: UpstreamProxy
    let extraRoutes: [Route]
    /// The idempotency records, jobs and runs, which outlive a reload.
    let generations: GenerationStores
    let runningJobs: RunningJobs
    let metrics: GatewayMetrics
    let accessLogOutput: AccessLogOutput
    let logger: Logger
    /// App Check's JWKS, cache and gate, made at start when App Check is on for any route (turning it on from off
    /// everywhere needs a restart).
    var appCheck: AppCheckComponents? = nil

    /// - Parameter previous: the request path running now; its AI provider is kept when the OpenAI settings are.
    /// - Throws: when a route names an unknown rate limit or a limited route lacks `auth: required`, a proxy header
    ///   or key is unusable, or prod has no OpenAI key.
    func build(_ configuration: GatewayConfiguration, previous: RequestPath?) throws(ConfigurationError) -> RequestPath {
        let authenticator = Authenticator(
            tokens: self.tokens, trustUserIDHeader: configuration.mode == .dev, failureLimiter: self.failureLimiter,
            assertions: configuration.proxy.acceptAssertions ? try IdentityAssertionVerifier(settings: configuration.proxy) : nil,
            revocation: self.revocation
        )
        let rateLimiter = RateLimiter(limits: configuration.rateLimits, store: self.store, metrics: self.metrics, logger: self.logger)
        let provider = try self.provider(configuration, previous: previous)
        let functions = StoryFunctionsService(
            provider: provider, media: self.media, models: configuration.models, logger: self.logger, metricsFactory: self.metrics.factory
        )
        let proxy =
            previous == nil
            ? self.proxy
            : try self.proxy.reconfigured(
                settings: configuration.proxy, trustedProxies: configuration.trustedProxies, defaultMaxBodyBytes: configuration.server.maxBodyBytes
            )
        let builder = RouteBuilder(
            functions: functions, media: self.media, mediaDelivery: self.mediaDelivery, isReady: self.isReady,
            metrics: self.metricsHandler, openAPI: self.openAPIHandler, proxy: proxy, limits: configuration.server,
            appCheck: self.appCheck.map { ($0.gate, configuration) }
        )
        // The admin route exists only with both an admin secret and the revocation check.
        let adminRoutes = self.revocation.flatMap { revocation in configuration.adminToken.map { [revocation.adminRoute(token: $0)] } } ?? []
        let jobRoutes = JobRoutes.routes(stores: self.generations, running: self.runningJobs)
        let routes = RouteTable(configuration.routes.map(builder.route) + adminRoutes + jobRoutes + self.extraRoutes)
        for route in routes.routes {
            guard let rule = route.rateLimit else { continue }
            guard rateLimiter.limits[rule.name] != nil else {
                throw ConfigurationError(variable: "routes", message: "route \(route.name) names an unknown rate limit '\(rule.name)'")
            }
            guard route.auth == .required else {
                throw ConfigurationError(variable: "routes", message: "route \(route.name) has a per-user rate limit, so it needs auth: required")
            }
        }
        var output = self.accessLogOutput
        if case .jsonStandardError(let label, _) = output { output = .jsonStandardError(label: label, level: configuration.logLevel) }
        let responder = GatewayResponder(
            routes: routes, authenticator: authenticator, rateLimiter: rateLimiter, trustedProxies: configuration.trustedProxies,
            metrics: self.metrics, accessLog: configuration.accessLog ? AccessLog(output: output) : nil, logger: self.logger,
            functionCalls: FunctionCalls(
                service: functions, stores: self.generations, idempotency: configuration.idempotency, jobs: configuration.jobs,
                rateLimiter: rateLimiter, logger: self.logger
            )
        )
        return RequestPath(
            configuration: configuration, responder: responder, authenticator: authenticator, rateLimiter: rateLimiter, proxy: proxy,
            provider: provider
        )
    }

    /// OpenAI when a key is configured; in dev without one, the offline provider. Kept from `previous` when the
    /// settings it was made with are unchanged.
    private func provider(_ configuration: GatewayConfiguration, previous: RequestPath?) throws(ConfigurationError) -> any AIProvider {
        if let previous, previous.configuration.openAIAPIKey == configuration.openAIAPIKey,
            previous.configuration.openAIBaseURL == configuration.openAIBaseURL,
            previous.configuration.openAITimeoutSeconds == configuration.openAITimeoutSeconds
        {
            return previous.provider
        }
        if let key = configuration.openAIAPIKey {
            var openAI = OpenAIConfiguration(apiKey: APIKey(key.value), baseURL: configuration.openAIBaseURL)
            if let seconds = configuration.openAITimeoutSeconds { openAI.deadlines = .all(.seconds(seconds)) }
            return OpenAIClient(configuration: openAI, http: self.curl, logger: self.logger, metricsFactory: self.metrics.factory)
        }
        guard configuration.mode == .dev else {
            throw ConfigurationError(
                variable: "OPENAI_API_KEY",
                message: "is required when ENV=prod: the built-in AI functions call OpenAI (set it, or OPENAI_API_KEY_FILE to a file holding it)"
            )
        }
        return OfflineProvider()
    }
}
