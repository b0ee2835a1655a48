import GatewayConfig
import HTTPTypes
import HummingbirdCore
import IDTokens
import Logging
import NIOCore

/// Turns each request into a response: request id, route, method, body limit, the rules (``RequestRules``: identity,
/// rate limit), handler, and every error rendered as JSON in one place. Nothing a client sends produces a 500 or a crash.
/// Each answered request is counted in the metrics and written to the access log.
/// A class: every connection holds it and reaches it on every request (one reference, not a copy of each field).
final class GatewayResponder: Sendable {
    let routes: RouteTable
    /// Identity and rate limit, for every request.
    let rules: RequestRules
    let trustedProxies: [IPAddressRange]
    let metrics: GatewayMetrics
    let accessLog: AccessLog?
    let requestIDs = RequestIDGenerator()
    let dates = DateHeaderCache()
    let logger: Logger
    /// The five functions' calls (idempotency, jobs); nil only for a responder built without them (tests).
    let functionCalls: FunctionCalls?
    /// The wall clock (seconds since 1970) for answers' `Date`, error timestamps and identity assertions: injected so
    /// tests can set the time.
    let now: @Sendable () -> Double

    init(
        routes: RouteTable, authenticator: Authenticator, rateLimiter: RateLimiter, trustedProxies: [IPAddressRange],
        metrics: GatewayMetrics, accessLog: AccessLog?, logger: Logger, functionCalls: FunctionCalls? = nil,
        now: @escaping @Sendable () -> Double = WallClock.now
    ) {
        self.routes = routes
        self.functionCalls = functionCalls
        self.now = now
        self.rules = RequestRules(authenticator: authenticator, rateLimiter: rateLimiter, trustedProxies: trustedProxies, metrics: metrics, now: now)
        self.trustedProxies = trustedProxies
        self.metrics = metrics
        self.accessLog = accessLog
        self.logger = logger
    }

    static let requestIDHeader = HTTPField.Name("X-Request-ID")!

    /// The answer to a routed (or unroutable) request: framing, route, method and declared body checks, the rules
    /// (``RequestRules``), then the route's handler; every error as JSON.
    /// - Parameter watcher: tells the handler when the client leaves.
    func response(
        to request: Request, route: Route?, requestID: String, channel: any Channel, peer: String?, upstream: UpstreamTiming?,
        watcher: ClientCloseWatcher, record: inout RequestRecord
    ) async -> Response {
        // The limit's fields, once a limit has counted the request: every answer after that carries them, errors too.
        var limitHeaders: HTTPFields?
        do {
            guard let route else { throw GatewayError.notFound() }
            record.route = route.name
            guard route.allows(request.method) else { throw GatewayError.methodNotAllowed(allowed: route.methods) }
            if let limit = route.maxBodyBytes { try RequestBodyReader.refuseIfDeclaredTooLarge(request.headers, limit: limit) }
            var progress = RuleProgress(route: route, fields: request.headers, peer: peer)
            let keepsAnswer = route.function != nil || (route.upstream != nil && route.keepsAnswer(request.head))
            progress.defersRateLimit = keepsAnswer && self.functionCalls != nil
            let refusal = await self.rules.decide(&progress)
            progress.note(into: &record)
            limitHeaders = progress.limit?.fields
            if let refusal { throw refusal }
            let identity = progress.identity
            let context = RequestContext(requestID: requestID, identity: identity, channel: channel, upstream: upstream, watcher: watcher)
            var response: Response
            if keepsAnswer, let calls = self.functionCalls {
                var outcome = FunctionCalls.Outcome()
                let result: Result<Response, any Error>
                do {
                    if let function = route.function, let identity {
                        result = .success(try await calls.respond(request, route: route, function: function, identity: identity, context: context, outcome: &outcome))
                    } else if let upstream = route.upstream {
                        result = .success(
                            try await calls.forward(request, route: route, upstream: upstream, identity: identity, context: context, peer: peer, outcome: &outcome)
                        )
                    } else {
                        throw GatewayError.internalError()
                    }
                } catch {
                    result = .failure(error)
                }
                if let limitOutcome = outcome.limitOutcome, !limitOutcome.isEmpty { record.rateLimit = limitOutcome }
                record.idempotency = outcome.idempotency
                limitHeaders = outcome.limit?.fields
                response = try result.get()
            } else {
                response =
                    route.forwardsUpstream && MaxForwards.endsHere(request.head)
                    ? MaxForwards.optionsAnswer(allowed: route.methods) : try await route.handler(request, context)
            }
            if let limitHeaders { response.headers.append(contentsOf: limitHeaders) }
            return response
        } catch var error as GatewayError {
            record.errorReason = error.reason
            if let limitHeaders { error.headers.append(contentsOf: limitHeaders) }
            if error.status == .unauthorized || error.status == .serviceUnavailable {
                self.logger.debug("request refused", metadata: ["request_id": "\(requestID)", "reason": "\(error.reason)"])
            }
            return ErrorResponse.make(error, requestID: requestID, now: self.now())
        } catch is CancellationError {
            // The client left (or the gateway is stopping) while a handler worked: nobody reads this answer.
            record.errorReason = "cancelled"
            return ErrorResponse.make(
                GatewayError(status: .serviceUnavailable, code: "UNAVAILABLE", message: "The request was cancelled.", reason: "cancelled"),
                requestID: requestID, now: self.now()
            )
        } catch {
            // A handler bug, not the client's fault: log the type only (errors may carry request data).
            record.errorReason = "internal"
            self.logger.error("unhandled error", metadata: ["request_id": "\(requestID)", "error_type": "\(type(of: error))"])
            return ErrorResponse.make(.internalError(), requestID: requestID, now: self.now())
        }
    }

    /// Counts an answered request and writes its access-log line.
    func answered(
        requestID: String, method: HTTPRequest.Method, path: String, status: Int, since start: ContinuousClock.Instant,
        record: RequestRecord, upstream: UpstreamTiming?
    ) {
        let latency = start.duration(to: .now)
        self.metrics.requestAnswered(route: record.route, status: status, duration: latency)
        self.accessLog?.log(
            requestID: requestID, method: method.rawValue, path: path, status: status, latency: latency, record: record, upstream: upstream
        )
    }

    /// The client's `X-Request-ID` when it sent one acceptable value, otherwise a new one.
    func requestID(_ fields: HTTPFields) -> String {
        if case .one(let incoming) = fields.sole(Self.requestIDHeader), RequestIDGenerator.isAcceptable(incoming) { return incoming }
        return self.requestIDs.next()
    }
}
