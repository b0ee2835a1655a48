import GatewayConfig
import HTTPTypes
import IDTokens
import NIOCore

/// The edge's rules for a routed request, in order: the caller's identity (the route's auth policy), its session
/// (the revocation check, when on), the App Check token (when App Check is on for the route), then the route's rate
/// limit. Every request through the edge, proxied or answered by a built-in handler, passes them here and only
/// here. A step decides on the event loop when it can (a cached or verifiable token, a cached user state, an
/// in-process bucket); a step that needs I/O (a certificate refetch, a user's state lookup, an App Check JWKS refetch
/// or consume call, a Redis bucket) leaves the request ``RuleVerdict/waiting``, and
/// ``finish(_:)`` or ``finishOnLoop(_:on:)`` does that I/O and goes on from there.
struct RequestRules: Sendable {
    let authenticator: Authenticator
    let rateLimiter: RateLimiter
    let trustedProxies: [IPAddressRange]
    let metrics: GatewayMetrics
    /// The wall clock (seconds since 1970) the rules read: injected so tests can set the time.
    var now: @Sendable () -> Double = WallClock.now

    /// Runs the steps that need no I/O, from where `progress` stands, until the request passes, is refused, or
    /// waits on I/O.
    func run(_ progress: inout RuleProgress) -> RuleVerdict {
        while true {
            switch progress.step {
            case .identify:
                guard progress.route.auth != .none else {
                    progress.step = .appCheck
                    continue
                }
                let (fields, peer, trusted) = (progress.fields, progress.peer, self.trustedProxies)
                let clientAddress = { ClientAddress.resolve(peer: peer, headers: fields, trustedProxies: trusted) }
                let outcome: Authenticator.Outcome
                do {
                    outcome =
                        progress.route.auth == .required
                        ? try self.authenticator.authenticateNow(fields, authorization: progress.authorization, clientAddress: clientAddress)
                        : try self.authenticator.identifyNow(fields, authorization: progress.authorization, clientAddress: clientAddress)
                } catch {
                    self.metrics.authenticationFailed(reason: error.reason)
                    return .refused(error)
                }
                switch outcome {
                case .identified(let identity):
                    self.identified(identity, &progress)
                case .needsKeyRefetch(let token):
                    progress.tokenToVerify = token
                    return .waiting
                }
            case .revocation:
                guard let revocation = self.authenticator.revocation, let identity = progress.identity else {
                    progress.step = .appCheck
                    continue
                }
                do {
                    switch try revocation.decideNow(identity, now: self.now()) {
                    case .pass: progress.step = .appCheck
                    case .needsLookup: return .waiting
                    }
                } catch {
                    self.metrics.authenticationFailed(reason: error.reason)
                    return .refused(error)
                }
            case .appCheck:
                guard let appCheck = progress.route.appCheck else {
                    progress.step = .rateLimit
                    continue
                }
                guard let verdict = appCheck.gate.checkNow(Self.appCheckValues(progress), policy: appCheck.policy) else { return .waiting }
                progress.appCheckOutcome = verdict.outcome
                if let refusal = verdict.refusal { return .refused(refusal) }
                progress.step = .rateLimit
            case .rateLimit:
                guard !progress.defersRateLimit, let rule = progress.route.rateLimit, let identity = progress.identity else {
                    progress.step = .done
                    continue
                }
                guard self.rateLimiter.decidesWithoutWaiting else { return .waiting }
                var outcome = ""
                defer { progress.limitOutcome = outcome }
                do {
                    progress.limit = try self.rateLimiter.checkNow(rule, key: identity.uid, outcome: &outcome)
                } catch {
                    return .refused(error)
                }
                progress.step = .done
            case .done:
                return .passed
            }
        }
    }

    /// Runs every step, suspending for the ones that need I/O: nil when the request passes, or the refusal.
    func decide(_ progress: inout RuleProgress) async -> GatewayError? {
        var verdict = self.run(&progress)
        while true {
            switch verdict {
            case .passed: return nil
            case .refused(let error): return error
            case .waiting: verdict = await self.finish(&progress)
            }
        }
    }

    /// Does the I/O the current step waits on, then runs the steps after it that need none.
    func finish(_ progress: inout RuleProgress) async -> RuleVerdict {
        switch progress.step {
        case .identify:
            guard let token = progress.tokenToVerify else { break }
            progress.tokenToVerify = nil
            let (fields, peer, trusted) = (progress.fields, progress.peer, self.trustedProxies)
            let clientAddress = { ClientAddress.resolve(peer: peer, headers: fields, trustedProxies: trusted) }
            do {
                self.identified(try await self.authenticator.identify(refetchingKeysFor: token, clientAddress: clientAddress), &progress)
            } catch {
                self.metrics.authenticationFailed(reason: error.reason)
                return .refused(error)
            }
        case .revocation:
            // The user's state was not cached: one lookup per user in flight, this request waiting for it.
            guard let revocation = self.authenticator.revocation, let identity = progress.identity else { break }
            do {
                try await revocation.decide(identity)
            } catch {
                self.metrics.authenticationFailed(reason: error.reason)
                return .refused(error)
            }
            progress.step = .appCheck
        case .appCheck:
            guard let appCheck = progress.route.appCheck else { break }
            let verdict = await appCheck.gate.check(Self.appCheckValues(progress), policy: appCheck.policy)
            progress.appCheckOutcome = verdict.outcome
            if let refusal = verdict.refusal { return .refused(refusal) }
            progress.step = .rateLimit
        case .rateLimit:
            guard !progress.defersRateLimit, let rule = progress.route.rateLimit, let identity = progress.identity else { break }
            var outcome = ""
            defer { progress.limitOutcome = outcome }
            do {
                progress.limit = try await self.rateLimiter.answer(rule, key: identity.uid, outcome: &outcome)
            } catch {
                return .refused(error)
            }
            progress.step = .done
        case .done:
            break
        }
        return self.run(&progress)
    }

    /// ``finish(_:)`` from `eventLoop` and back on it, with no task in between, when the step waits on a store that
    /// can answer so (a Redis bucket): `then` gets the progress and the verdict of the steps after it. False, and
    /// `then` is not called, when the step needs a task (a certificate refetch).
    func finishOnLoop(
        _ progress: RuleProgress, on eventLoop: any EventLoop, then complete: @escaping (RuleProgress, RuleVerdict) -> Void
    ) -> Bool {
        guard case .rateLimit = progress.step, !progress.defersRateLimit, let rule = progress.route.rateLimit, let identity = progress.identity
        else { return false }
        self.rateLimiter.answer(rule, key: identity.uid, on: eventLoop) { answer, refusal, outcome in
            var progress = progress
            progress.limitOutcome = outcome
            if let refusal {
                complete(progress, .refused(refusal))
                return
            }
            progress.limit = answer
            progress.step = .done
            let verdict = self.run(&progress)
            complete(progress, verdict)
        }
        return true
    }

    private func identified(_ identity: Identity?, _ progress: inout RuleProgress) {
        if let identity { self.metrics.authenticated(source: identity.source) }
        progress.identity = identity
        progress.step = .revocation
    }

    static let appCheckHeader = HTTPField.Name(AppCheckGate.headerName)!

    /// Every `X-Firebase-AppCheck` value of the request: the one the head reader kept apart, or those among its fields.
    private static func appCheckValues(_ progress: RuleProgress) -> [Substring] {
        if let appCheck = progress.appCheck { return [Substring(appCheck)] }
        return progress.fields[values: Self.appCheckHeader].map { Substring($0) }
    }
}

/// Where a request stands in ``RequestRules``, and what the rules found so far.
struct RuleProgress: Sendable {
    enum Step: Sendable {
        case identify
        case revocation
        case appCheck
        case rateLimit
        case done
    }

    let route: Route
    let fields: HTTPFields
    /// The `Authorization` value when the head reader kept it apart from `fields`; nil when it is among them, or absent.
    let authorization: String?
    /// The `X-Firebase-AppCheck` value when the head reader kept it apart, as `authorization`.
    let appCheck: String?
    /// The connection's peer address, for the client address behind trusted proxies.
    let peer: String?
    var step = Step.identify
    var identity: Identity?
    /// The route's rate limit is left to its handler (a function route: ``FunctionCalls`` applies it after the
    /// idempotency record, so a replay spends no token).
    var defersRateLimit = false
    /// A token signed with a key not held yet, verified once the certificates are refetched.
    var tokenToVerify: Substring?
    /// The rate limit's decision, whose fields the answer carries.
    var limit: RateLimiter.Answer?
    /// The rate limit's outcome for the access log (`allowed`, `limited`, `shadow`, `store_error`).
    var limitOutcome: String?
    /// The App Check outcome for the access log, on routes with App Check on.
    var appCheckOutcome: String?

    init(route: Route, fields: HTTPFields, authorization: String? = nil, appCheck: String? = nil, peer: String?) {
        self.route = route
        self.fields = fields
        self.authorization = authorization
        self.appCheck = appCheck
        self.peer = peer
    }

    /// The identity and limit outcome, into the access log's record.
    func note(into record: inout RequestRecord) {
        if let identity {
            record.authSource = identity.source.rawValue
            record.uid = identity.uid
        }
        if let limitOutcome, !limitOutcome.isEmpty { record.rateLimit = limitOutcome }
        if let appCheckOutcome { record.appCheck = appCheckOutcome }
    }
}

/// Where ``RequestRules`` left a request.
enum RuleVerdict: Sendable {
    /// Every rule passed.
    case passed
    /// A rule refused the request with this error.
    case refused(GatewayError)
    /// The current step needs I/O: ``RequestRules/finish(_:)``.
    case waiting
}
