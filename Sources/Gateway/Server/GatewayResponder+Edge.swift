import HTTPTypes
import HTTPWire
import HummingbirdCore
import IDTokens
import Logging
import NIOCore
import NIOHTTPTypes
import UpstreamClient

/// One request under way on a connection: what its answer, the metrics and the access log need. A class: it is
/// handed from the rules to the exchange, the answer's writer and the access log (one reference, not a struct of nine
/// retained field by field). Confined to the connection's event loop, like its handler.
final class EdgeRequest {
    let start: ContinuousClock.Instant
    let requestID: String
    let method: HTTPRequest.Method
    let path: String
    /// The connection closes after this answer (the client asked for it, or the answer says so).
    var closesConnection: Bool
    /// The client reads a chunked answer (HTTP/1.1); else an answer of unknown length ends with the close.
    var readsChunked = true
    var record: RequestRecord
    /// The rate limit's decision, whose fields the answer carries.
    var limit: RateLimiter.Answer?

    init(
        start: ContinuousClock.Instant, requestID: String, method: HTTPRequest.Method, path: String, closesConnection: Bool,
        record: RequestRecord
    ) {
        self.start = start
        self.requestID = requestID
        self.method = method
        self.path = path
        self.closesConnection = closesConnection
        self.record = record
    }
}

/// What the connection does with a request head (``GatewayResponder/start(_:authorization:appCheck:body:streamed:closesConnection:channel:peer:)``).
enum RequestStart {
    /// Refused before any upstream work (authentication or rate limit), counted and recorded.
    case refuse(EdgeRequest, GatewayError)
    /// To be forwarded with this upstream head.
    case forward(EdgeRequest, UpstreamRoute, UpstreamRequestHead)
    /// For a built-in route's handler (``BuiltinExchange``), which applies the rules itself.
    case handle(EdgeRequest, Route)
    /// The rest of the rules need I/O (a certificate refetch, a Redis limit): the exchange waits for
    /// ``GatewayResponder/decide(_:)`` on the connection's event loop, then goes on with ``GatewayResponder/resume(_:_:_:allocator:)``.
    case decide(EdgeRequest, PendingDecision)
}

extension RequestStart {
    /// The request this start is for.
    var request: EdgeRequest {
        switch self {
        case .refuse(let request, _), .forward(let request, _, _), .handle(let request, _), .decide(let request, _): request
        }
    }
}

/// A request whose rules wait on I/O: what `start` had worked out, to finish them with.
struct PendingDecision: Sendable {
    let head: HTTPRequest
    let upstream: UpstreamRoute
    /// The upstream request's target.
    let target: String
    /// The request's body, when it came whole with its head.
    let body: ByteBuffer?
    /// The framing of a body that streams after the head (`none` when there is none, or it came whole).
    let streamed: RequestBodyFraming
    var rules: RuleProgress
}

/// What ``GatewayResponder/decide(_:)`` found, applied to the request on its event loop.
struct Decision: Sendable {
    var rules: RuleProgress
    /// nil: every rule passed.
    var refusal: GatewayError?
}

extension PendingDecision {
    /// `pending` with the rules' later progress.
    init(rules: RuleProgress, of pending: PendingDecision) {
        self.init(head: pending.head, upstream: pending.upstream, target: pending.target, body: pending.body, streamed: pending.streamed, rules: rules)
    }
}

/// The responder's side of a connection (``ConnectionHandler`` drives it): a request without a route is a 404, a
/// method its route does not take a 405; a built-in route's request goes to its handler (``BuiltinExchange``); an
/// upstream route's gets the rules (``RequestRules``) — those that need no I/O at once, a certificate refetch or a
/// Redis limit suspending the request (``RequestStart/decide(_:_:)``) to resume it on the same connection — and is
/// forwarded (``ProxyExchange``).
extension GatewayResponder {
    /// - Parameters:
    ///   - authorization: the `Authorization` value, kept apart from `head`'s fields by ``RawRequestHead``.
    ///   - body: the request's body when it came whole with the head (its `Content-Length` is in `head`); nil for a
    ///     request that declares none, or whose body streams.
    ///   - streamed: the framing of a body that streams after the head.
    ///   - peer: the connection's peer address as text, worked out once per connection by its handler.
    ///   - appCheck: the `X-Firebase-AppCheck` value, kept apart as `authorization`.
    ///   - closesConnection: the connection closes after the answer (``RequestHead/closesConnection``).
    func start(
        _ head: HTTPRequest, authorization: String? = nil, appCheck: String? = nil, body: ByteBuffer? = nil,
        streamed: RequestBodyFraming = .none, closesConnection: Bool, channel: any Channel, peer: String?
    ) -> RequestStart {
        let uri = URI(head.path ?? "")
        let route = self.routes.route(for: uri.path)
        let request = self.edgeRequest(head, path: uri.path, route: route, closesConnection: closesConnection, peer: peer)
        guard let route else { return .refuse(request, .notFound()) }
        // A method the route does not take: 405 on any route, before authentication.
        guard route.allows(head.method) else { return .refuse(request, .methodNotAllowed(allowed: route.methods)) }
        // A built-in route's request, and an OPTIONS the gateway answers itself (`Max-Forwards: 0`): the handler's
        // exchange applies the rules.
        // A write whose answer is kept under an Idempotency-Key is read whole and answered by ``FunctionCalls``.
        guard route.forwardsUpstream, let upstream = route.upstream, !MaxForwards.endsHere(head), !route.keepsAnswer(head) else {
            return .handle(request, route)
        }
        guard let target = upstream.target.path(path: uri.path, query: uri.query) else { return .refuse(request, .dotSegmentInPath()) }
        if let body, body.readableBytes > upstream.maxBodyBytes {
            return .refuse(request, .payloadTooLarge(limit: upstream.maxBodyBytes))
        }
        if case .length(let declared) = streamed, declared > upstream.maxBodyBytes {
            return .refuse(request, .payloadTooLarge(limit: upstream.maxBodyBytes))
        }
        var pending = PendingDecision(
            head: head, upstream: upstream, target: target, body: body, streamed: streamed,
            rules: RuleProgress(route: route, fields: head.headerFields, authorization: authorization, appCheck: appCheck, peer: peer)
        )
        switch self.rules.run(&pending.rules) {
        case .passed:
            pending.rules.note(into: &request.record)
            request.limit = pending.rules.limit
            return self.forward(request, pending, allocator: channel.allocator)
        case .refused(let error):
            pending.rules.note(into: &request.record)
            return .refuse(request, error)
        case .waiting:
            return .decide(request, pending)
        }
    }

    /// The rules `start` left for I/O, in a task.
    func decide(_ pending: PendingDecision) async -> Decision {
        var progress = pending.rules
        let refusal = await self.rules.decide(&progress)
        return Decision(rules: progress, refusal: refusal)
    }

    /// ``decide(_:)`` from `eventLoop` and back on it when the step waiting can be finished so (a Redis limit): no
    /// task in between. `then` gets the decision, or nil when a later step waits too and the rest needs ``decide(_:)``
    /// with the pending request `then` also gets. False when a task is needed from the start.
    func decideOnLoop(
        _ pending: PendingDecision, eventLoop: any EventLoop, then complete: @escaping (Decision?, PendingDecision) -> Void
    ) -> Bool {
        self.rules.finishOnLoop(pending.rules, on: eventLoop) { progress, verdict in
            let pending = PendingDecision(rules: progress, of: pending)
            switch verdict {
            case .passed: complete(Decision(rules: progress, refusal: nil), pending)
            case .refused(let error): complete(Decision(rules: progress, refusal: error), pending)
            case .waiting: complete(nil, pending)
            }
        }
    }

    /// Applies a ``Decision`` to its request, on the connection's event loop: the upstream head, or the refusal.
    func resume(_ request: EdgeRequest, _ pending: PendingDecision, _ decision: Decision, allocator: ByteBufferAllocator) -> RequestStart {
        decision.rules.note(into: &request.record)
        request.limit = decision.rules.limit
        if let refusal = decision.refusal { return .refuse(request, refusal) }
        return self.forward(request, PendingDecision(rules: decision.rules, of: pending), allocator: allocator)
    }

    /// The upstream request's head (and body), once every rule has passed.
    private func forward(_ request: EdgeRequest, _ pending: PendingDecision, allocator: ByteBufferAllocator) -> RequestStart {
        let upstream = pending.upstream
        var upstreamHead = UpstreamRequestHead(
            method: pending.head.method, path: pending.target, authority: upstream.target.authority, allocator: allocator
        )
        do {
            try upstream.headers.write(
                for: pending.head, authorization: pending.rules.authorization, appCheck: pending.rules.appCheck, requestID: request.requestID,
                identity: pending.rules.identity, peer: pending.rules.peer, now: self.now(), into: &upstreamHead
            )
        } catch {
            return .refuse(request, error)
        }
        if pending.streamed != .none {
            upstreamHead.end(streaming: pending.streamed)
        } else {
            upstreamHead.end(body: pending.body, clientSentLength: pending.head.headerFields[.contentLength] != nil)
        }
        return .forward(request, upstream, upstreamHead)
    }

    /// A request read from a connection, from its arrival on.
    private func edgeRequest(_ head: HTTPRequest, path: String, route: Route?, closesConnection: Bool, peer: String?) -> EdgeRequest {
        var record = RequestRecord()
        if let route { record.route = route.name }
        // The access log's fields: worked out only when there is one to write.
        if self.accessLog != nil { record.noteRequest(head.headerFields, peer: peer, trustedProxies: self.trustedProxies, route: route) }
        return EdgeRequest(
            start: .now, requestID: self.requestID(head.headerFields), method: head.method, path: path,
            closesConnection: closesConnection, record: record
        )
    }

    /// A request whose head could not be read, answered as one (a new request id, no route, method `-`).
    func unreadableRequest(peer: String?) -> EdgeRequest {
        var record = RequestRecord()
        if self.accessLog != nil { record.noteRequest(HTTPFields(), peer: peer, trustedProxies: self.trustedProxies, route: nil) }
        return EdgeRequest(
            start: .now, requestID: self.requestIDs.next(), method: Self.unknownMethod, path: "-", closesConnection: true, record: record
        )
    }

    private static let unknownMethod = HTTPRequest.Method("-")!

    /// The fields every answer carries after its own — an upstream's, a handler's, an error's — written in this one
    /// place: the rate limit's fields, the request id, the date unless the answer has its own (an upstream's `Date` is
    /// kept: it is when the answer was made, RFC 9110 §6.6.1), and `Connection: close` when the connection closes after
    /// it. The answer's own fields hold no `X-Request-ID` and no `Connection`.
    func appendAnswerFields(to output: inout some FieldOutput, for request: EdgeRequest, answerHasDate: Bool) {
        request.limit?.write(into: &output)
        output.append(Self.requestIDHeader, request.requestID)
        if !answerHasDate { output.append(.date, self.dates.value(now: self.now())) }
        if request.closesConnection { output.append(.connection, "close") }
    }

    /// ``appendAnswerFields(to:for:answerHasDate:)`` for an answer as `HTTPFields`, in place of any `X-Request-ID` or
    /// `Connection` they hold.
    func finishAnswerFields(_ fields: inout HTTPFields, _ request: EdgeRequest) {
        fields[Self.requestIDHeader] = nil
        if request.closesConnection { fields[.connection] = nil }
        self.appendAnswerFields(to: &fields, for: request, answerHasDate: fields.contains(.date))
    }

    /// Writes an error answer as JSON (headers only for HEAD), flushed.
    func writeError(_ error: GatewayError, for request: EdgeRequest, to sink: any AnswerSink) {
        request.record.errorReason = error.reason
        // A refusal that ends the connection (a request whose framing cannot be trusted) says so, and closes it.
        if HopByHopHeaders.listsClose(error.headers[.connection]) { request.closesConnection = true }
        if error.status == .unauthorized || error.status == .serviceUnavailable {
            self.logger.debug("request refused", metadata: ["request_id": "\(request.requestID)", "reason": "\(error.reason)"])
        }
        let json = ErrorResponse.json(error, requestID: request.requestID, now: self.now())
        var fields = ErrorResponse.fields(error)
        fields[.contentLength] = String(json.utf8.count)
        self.finishAnswerFields(&fields, request)
        sink.writeHead(HTTPResponse(status: error.status, headerFields: fields), for: request)
        if request.method != .head { sink.writeBody(ByteBuffer(string: json)) }
        sink.writeEnd(for: request)
    }

    /// Counts and logs a finished direct request.
    func finished(_ request: EdgeRequest, status: Int, upstream: UpstreamTiming?) {
        self.answered(
            requestID: request.requestID, method: request.method, path: request.path, status: status, since: request.start,
            record: request.record, upstream: upstream
        )
        self.metrics.requestFinished()
    }
}
