import GatewayConfig
import StoryFunctions

/// Turns the configured route table into routes: each entry's policy around its built-in handler or the proxy.
struct RouteBuilder {
    let functions: StoryFunctionsService
    let media: any MediaStore
    let mediaDelivery: MediaHandler.Delivery
    let isReady: @Sendable () -> Readiness
    let metrics: RouteHandler
    let openAPI: RouteHandler
    let proxy: UpstreamProxy
    let limits: ServerLimits
    /// The App Check gate and the gateway's mode, when App Check is on for any route.
    var appCheck: (gate: AppCheckGate, configuration: GatewayConfiguration)? = nil

    func route(_ configuration: RouteConfiguration) -> Route {
        let handler: RouteHandler
        let methods: [HTTPRequest.Method]
        let forwardsUpstream: Bool
        var upstreamRoute: UpstreamRoute?
        var function: FunctionRoute?
        var maxBodyBytes = configuration.maxBodyBytes ?? self.limits.maxBodyBytes
        switch configuration.target {
        case .builtin(let builtin):
            methods = configuration.methods ?? builtin.methods
            handler = self.handler(builtin, path: configuration.path)
            forwardsUpstream = false
            // A function reads no more than its own limit whatever the route allows: a larger declared body is
            // refused before anything is read (and before `100 Continue`), not after.
            if let call = FunctionRoutes.function(builtin) {
                maxBodyBytes = min(maxBodyBytes, StoryFunctionsService.maximumBodyBytes)
                function = FunctionRoute(handler: builtin, call: call, idempotency: configuration.idempotencyMode)
            }
        case .upstream(let upstream):
            methods = configuration.methods ?? RouteConfiguration.allMethods
            upstreamRoute = self.proxy.route(for: configuration, upstream: upstream)
            // Requests go to `upstreamRoute` (``ProxyExchange``); this handler answers those it cannot take.
            handler = { _, _ in throw GatewayError.upstreamUnreachable(reason: "tls_unavailable") }
            forwardsUpstream = true
        }
        return Route(
            name: configuration.name, path: configuration.path, methods: methods, auth: configuration.auth,
            rateLimit: configuration.rateLimit, maxBodyBytes: maxBodyBytes,
            forwardsUpstream: forwardsUpstream, upstream: upstreamRoute, appCheck: self.appCheckStep(configuration), function: function,
            idempotency: configuration.idempotencyMode, handler: handler
        )
    }

    private func handler(_ builtin: BuiltinHandler, path: Route.PathMatch) -> RouteHandler {
        switch builtin {
        case .storyGeneration, .extractScenes, .audioSynthesis, .avatarGeneration, .sceneIllustration:
            // The route's ``FunctionRoute`` is answered by ``FunctionCalls``, not by a handler.
            return { _, _ in throw GatewayError.internalError() }
        case .media:
            let prefix: String
            switch path {
            case .prefix(let text): prefix = text
            case .exact(let text): prefix = text.hasSuffix("/") ? text : text + "/"
            }
            return MediaHandler.handler(self.media, prefix: prefix, delivery: self.mediaDelivery)
        case .me: return MeHandler.handler()
        case .healthz: return SystemHandlers.health()
        case .readyz: return SystemHandlers.ready(isReady: self.isReady)
        case .metrics: return self.metrics
        case .openapi: return self.openAPI
        }
    }

    private func appCheckStep(_ route: RouteConfiguration) -> AppCheckStep? {
        guard let appCheck = self.appCheck else { return nil }
        let mode = appCheck.configuration.appCheckMode(of: route)
        guard mode != .off else { return nil }
        return AppCheckStep(gate: appCheck.gate, policy: AppCheckGate.Policy(route: route.name, mode: mode, consume: route.appCheckConsume))
    }
}

import HTTPTypes
