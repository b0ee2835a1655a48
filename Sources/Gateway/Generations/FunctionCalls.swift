import GatewayConfig
import Generations
import HTTPTypes
import HummingbirdCore
import IDTokens
import Logging
import NIOCore
import StoryFunctions
import Synchronization
import UpstreamClient

/// A call of one of the five functions, or a write under an `Idempotency-Key` to an upstream route, from a caller
/// whose identity the rules have verified and whose rate limit they left for here: with a key it is run once and
/// its 2xx answer kept; a function call with `Prefer: respond-async` becomes a job; otherwise it runs as long as its
/// client waits.
///
/// The order is the contract: the key's syntax (400), the body (413 before any record), the record (a replay, a join,
/// a 422 spend no rate-limit token), then for a run the function's fields (400, which frees the key), the rate
/// limit, and the run. A run under a key goes on when its client leaves, and its answer is kept for the retry.
struct FunctionCalls: Sendable {
    let service: StoryFunctionsService
    let stores: GenerationStores
    let idempotency: IdempotencySettings
    let jobs: JobSettings
    let rateLimiter: RateLimiter
    let logger: Logger

    /// How long a run holds its key before it must renew it, and how often it does.
    static let lease: Duration = .seconds(30)
    static let renewal: Duration = .seconds(10)
    /// The longest a request that joined a run waits for its answer: longer than any function takes.
    static let joinLimit: Duration = .seconds(300)

    static let idempotencyKeyField = HTTPField.Name(IdempotencyKey.fieldName)!
    static let preferField = HTTPField.Name(Preferences.fieldName)!
    static let preferenceAppliedField = HTTPField.Name("Preference-Applied")!

    /// What the call answered, and what its rate limit said (for the answer's fields and the access log).
    struct Outcome {
        var limit: RateLimiter.Answer?
        var limitOutcome: String?
        var idempotency: String?
    }

    /// The request's key under `mode`: nil when it has none (or the route takes none); 400 for a malformed one, or
    /// for none where the route requires one.
    static func key(_ request: Request, mode: IdempotencyMode) throws(GatewayError) -> IdempotencyKey? {
        guard mode != .off else { return nil }
        let key: IdempotencyKey?
        do {
            key = try IdempotencyKey.parse(request.headers[values: Self.idempotencyKeyField])
        } catch {
            throw GatewayError.invalidIdempotencyKey()
        }
        if mode == .required, key == nil { throw GatewayError.idempotencyKeyRequired() }
        return key
    }

    /// Whether the body is declared `application/json` (parameters such as `charset` allowed).
    static func declaresJSON(_ fields: HTTPFields) -> Bool {
        guard case .one(let value) = fields.sole(.contentType) else { return false }
        var type = value.prefix { $0 != ";" }
        while type.last == " " || type.last == "\t" { type.removeLast() }
        return type.lowercased() == "application/json"
    }

    func respond(
        _ request: Request, route: Route, function: FunctionRoute, identity: Identity, context: RequestContext, outcome: inout Outcome
    ) async throws -> Response {
        let key = try Self.key(request, mode: function.idempotency)
        guard Self.declaresJSON(request.headers) else { throw GatewayError.unsupportedMediaType() }
        let preferences = Preferences(request.headers[values: Self.preferField])
        let body = try await RequestBodyReader.collect(request.body, headers: request.headers, limit: StoryFunctionsService.maximumBodyBytes)
        let call = Call(calls: self, route: route, work: .function(function), identity: identity, body: body, requestID: context.requestID)
        guard let key else {
            try call.check()
            try await call.limit(&outcome)
            return try await preferences.respondAsync ? call.createJob() : call.runWhileClientWaits(context)
        }
        return try await call.idempotent(key, method: request.method, async: preferences.respondAsync, outcome: &outcome)
    }

    /// A write to an upstream route whose idempotency mode takes it (``Route/keepsAnswer(_:)``): read whole, sent on the
    /// route's connections, its answer kept under the key.
    func forward(
        _ request: Request, route: Route, upstream: UpstreamRoute, identity: Identity?, context: RequestContext, peer: String?,
        outcome: inout Outcome
    ) async throws -> Response {
        let key = try Self.key(request, mode: route.idempotency)
        // Keys are per user: a route that takes anonymous callers forwards a request without one as it is.
        guard let identity else { throw GatewayError.idempotencyKeyRequired() }
        let uri = URI(request.head.path ?? "")
        guard let target = upstream.target.path(path: uri.path, query: uri.query) else { throw GatewayError.dotSegmentInPath() }
        let body = try await RequestBodyReader.collect(request.body, headers: request.headers, limit: upstream.maxBodyBytes)
        var head = UpstreamRequestHead(
            method: request.method, path: target, authority: upstream.target.authority, allocator: context.channel.allocator
        )
        try upstream.headers.write(
            for: request.head, requestID: context.requestID, identity: identity, peer: peer, now: self.stores.now(), into: &head
        )
        head.end(body: ByteBuffer(bytes: body), clientSentLength: request.headers[.contentLength] != nil)
        let work = Call.Work.upstream(upstream, head, context.channel.eventLoop)
        let call = Call(calls: self, route: route, work: work, identity: identity, body: body, requestID: context.requestID)
        guard let key else {
            try await call.limit(&outcome)
            return await call.run().response(replayed: false)
        }
        return try await call.idempotent(key, method: request.method, async: false, outcome: &outcome)
    }
}

/// A route's function and its idempotency mode.
struct FunctionRoute: Sendable {
    let handler: BuiltinHandler
    let call: FunctionRoutes.Function
    let idempotency: IdempotencyMode
}

/// One call under way.
private struct Call: Sendable {
    /// What the call runs: a function, or an upstream exchange (its head, with the body, and the loop to send it from).
    enum Work: @unchecked Sendable {
        case function(FunctionRoute)
        case upstream(UpstreamRoute, UpstreamRequestHead, any EventLoop)
    }

    let calls: FunctionCalls
    let route: Route
    let work: Work
    let identity: Identity
    let body: [UInt8]
    let requestID: String

    var stores: GenerationStores { self.calls.stores }

    /// A function's request checked against its fields (no I/O), before the run takes a record or a token: a request
    /// the function would refuse is refused so (a job's at its creation). A replay needs none: its body, the same
    /// bytes, passed when it first ran.
    func check() throws(GatewayError) {
        guard case .function(let function) = self.work, let checked = StoryFunctionsService.Function(rawValue: function.handler.rawValue) else {
            return
        }
        do throws(FunctionError) {
            try StoryFunctionsService.check(self.body, for: checked)
        } catch {
            throw GatewayError(error)
        }
    }

    /// The route's rate limit, when it has one: one token, or the refusal.
    func limit(_ outcome: inout FunctionCalls.Outcome) async throws(GatewayError) {
        guard let rule = self.route.rateLimit else { return }
        var text = ""
        defer { outcome.limitOutcome = text }
        outcome.limit = try await self.calls.rateLimiter.answer(rule, key: self.identity.uid, outcome: &text)
    }

    /// Without a key: the function's answer, the run cancelled when the client leaves (nobody would receive it).
    func runWhileClientWaits(_ context: RequestContext) async throws -> Response {
        let answer = try await context.cancellingWhenClientLeaves { await self.run() }
        return answer.response(replayed: false)
    }

    /// The answer as a store keeps it, errors included.
    func run() async -> StoredAnswer {
        switch self.work {
        case .function(let function):
            let caller = Caller(uid: self.identity.uid, safetyIdentifier: UserHash.safetyIdentifier(self.identity.uid))
            return await Self.answer(
                function.call, service: self.calls.service, body: self.body, caller: caller, requestID: self.requestID, now: self.stores.now
            )
        case .upstream(let upstream, let head, let eventLoop):
            switch await UpstreamCall.send(head, route: upstream, on: eventLoop) {
            case .success(let answer): return answer
            case .failure(let failure): return StoredAnswer(upstream.answer(failure, requestID: self.requestID), requestID: self.requestID, now: self.stores.now())
            }
        }
    }

    static func answer(
        _ function: FunctionRoutes.Function, service: StoryFunctionsService, body: [UInt8], caller: Caller, requestID: String,
        now: @Sendable () -> Double
    ) async -> StoredAnswer {
        do throws(FunctionError) {
            let json = try await function(service, body, caller)
            var fields = HTTPFields()
            fields[.contentType] = "application/json"
            fields[.cacheControl] = "no-store"
            return StoredAnswer(status: .ok, fields: fields, body: json)
        } catch {
            return StoredAnswer(GatewayError(error), requestID: requestID, now: now())
        }
    }

    /// Under `key`: a replay, a join, a 422, or this request's run (kept if it succeeds).
    func idempotent(
        _ key: IdempotencyKey, method: HTTPRequest.Method, async: Bool, outcome: inout FunctionCalls.Outcome
    ) async throws -> Response {
        let scope = IdempotencyScope(uid: self.identity.uid, route: self.route.name, key: key)
        let fingerprint = RequestFingerprint(method: method.rawValue + (async ? " async" : ""), route: self.route.name, body: self.body)
        let owner = RunOwner.next()
        let store = self.stores.idempotency
        let metrics = self.stores.metrics
        let joinDeadline = ContinuousClock.now + FunctionCalls.joinLimit
        while true {
            let begin: IdempotencyBegin
            do {
                begin = try await store.begin(scope, fingerprint: fingerprint, owner: owner, lease: FunctionCalls.lease)
            } catch {
                metrics.idempotency("store_error")
                outcome.idempotency = "store_error"
                self.calls.logger.warning("idempotency store failed", metadata: ["error": "\(error)", "request_id": "\(self.requestID)"])
                guard self.calls.idempotency.failurePolicy == .open else { throw GatewayError.idempotencyUnavailable() }
                // Without the guarantee: the call runs (and spends its token) as if it had no key, to its end.
                metrics.idempotency("unguarded")
                outcome.idempotency = "unguarded"
                try self.check()
                try await self.limit(&outcome)
                return try await async ? self.createJob() : self.stores.runs.start { await self.run() }.value().response(replayed: false)
            }
            switch begin {
            case .replay(let answer):
                metrics.idempotency("replayed")
                outcome.idempotency = "replayed"
                return answer.response(replayed: true)
            case .mismatch:
                metrics.idempotency("reused")
                outcome.idempotency = "reused"
                throw GatewayError.idempotencyKeyReused()
            case .inFlight:
                let seen: IdempotencyWait
                do {
                    seen = try await store.wait(scope, fingerprint: fingerprint, until: joinDeadline)
                } catch {
                    seen = .timedOut
                }
                switch seen {
                case .answered(let answer):
                    metrics.idempotency("joined")
                    outcome.idempotency = "joined"
                    return answer.response(replayed: true)
                case .free:
                    // The run ended without a kept answer, or its replica died: begin again.
                    try Task.checkCancellation()
                    continue
                case .timedOut:
                    try Task.checkCancellation()
                    metrics.idempotency("in_flight")
                    outcome.idempotency = "in_flight"
                    throw GatewayError.idempotencyInFlight(retryAfter: 5)
                }
            case .started:
                metrics.idempotency("started")
                outcome.idempotency = "started"
                return try await self.started(scope, owner: owner, async: async, outcome: &outcome)
            }
        }
    }

    /// This request holds the key: the rate limit (a refusal frees the key), then the run, to its end whatever the
    /// client does; its answer ends the record.
    private func started(_ scope: IdempotencyScope, owner: String, async: Bool, outcome: inout FunctionCalls.Outcome) async throws -> Response {
        let store = self.stores.idempotency
        let keep = Duration.seconds(self.calls.idempotency.ttlSeconds)
        let (requestID, now, logger) = (self.requestID, self.stores.now, self.calls.logger)
        do {
            try self.check()
            try await self.limit(&outcome)
            if async {
                // A job's creation is the run: its 202 is what the key keeps.
                let answer = try await self.createJobAnswer()
                await Self.end(store, scope, owner: owner, answer: answer, keep: keep, logger: logger)
                return answer.response(replayed: false)
            }
        } catch {
            await Self.end(store, scope, owner: owner, answer: StoredAnswer(error, requestID: requestID, now: now()), keep: keep, logger: logger)
            throw error
        }
        let run = self.stores.runs.start(
            renewing: { _ = try? await store.renew(scope, owner: owner, lease: FunctionCalls.lease) }, every: FunctionCalls.renewal
        ) {
            let answer = await self.run()
            await Self.end(store, scope, owner: owner, answer: answer, keep: keep, logger: logger)
            return answer
        }
        return try await run.value().response(replayed: false)
    }

    private static func end(
        _ store: any IdempotencyStore, _ scope: IdempotencyScope, owner: String, answer: StoredAnswer, keep: Duration, logger: Logger
    ) async {
        do {
            try await store.end(scope, owner: owner, answer: answer, keepFor: keep)
        } catch {
            // The record's lease lapses on its own: the key is free again then.
            logger.warning("cannot end an idempotency record", metadata: ["error": "\(error)"])
        }
    }

    /// `Prefer: respond-async`: the job, queued (limits applied already), as its 202.
    func createJob() async throws -> Response {
        try await self.createJobAnswer().response(replayed: false)
    }

    private func createJobAnswer() async throws(GatewayError) -> StoredAnswer {
        guard case .function(let function) = self.work else { throw GatewayError.internalError() }
        let now = self.stores.now()
        let job = JobRecord(
            id: JobRecord.newID(), userHash: UserHash.logIdentifier(self.identity.uid), uid: self.identity.uid,
            function: function.handler.rawValue, createdAt: now, request: self.body
        )
        do {
            try await self.stores.jobs.create(job, maxQueued: self.calls.jobs.queueMax)
        } catch {
            if error == .full { throw GatewayError.queueFull(retryAfter: 5) }
            self.calls.logger.warning("cannot create a job", metadata: ["error": "\(error)", "request_id": "\(self.requestID)"])
            throw GatewayError.jobsUnavailable()
        }
        self.stores.metrics.job("created")
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.cacheControl] = "no-store"
        fields[.location] = JobRoutes.path(job.id)
        fields[FunctionCalls.preferenceAppliedField] = "respond-async"
        let json = "{\"job_id\":\"\(job.id)\",\"status\":\"queued\",\"created_at\":\(JSONWriter.quoted(HTTPDate.rfc3339(now)))}"
        return StoredAnswer(status: .accepted, fields: fields, body: Array(json.utf8))
    }
}

/// Names a run that holds a key: this process's random prefix and a counter, unique across replicas without a
/// random draw (a system call) per request.
private enum RunOwner {
    private static let prefix = String(JobRecord.newID().prefix(16)) + "-"
    private static let counter = Atomic<UInt64>(0)

    static func next() -> String {
        prefix + String(counter.add(1, ordering: .relaxed).newValue)
    }
}
