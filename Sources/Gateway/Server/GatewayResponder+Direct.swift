import HTTPTypes
import HummingbirdCore
import IDTokens
import Logging
import NIOCore
import NIOHTTPTypes

/// One request on the direct path: what its answer, the metrics and the access log need. A class: it is handed
/// from the rules to the exchange, the answer's writer and the access log, and a struct of nine references was
/// retained field by field at each step. Confined to the connection's event loop, like its handler.
final class DirectRequest {
    let start: ContinuousClock.Instant
    let requestID: String
    let method: HTTPRequest.Method
    let path: String
    /// The client asked for the connection to close after this answer.
    let closesConnection: Bool
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

/// What the direct path does with a request head.
enum DirectStart {
    /// Not for the direct path: the async responder takes it (nothing has been counted or recorded yet).
    case handOn
    /// Refused before any upstream work (authentication or rate limit), counted and recorded.
    case refuse(DirectRequest, GatewayError)
    /// To be forwarded with this upstream head.
    case forward(DirectRequest, UpstreamRoute, UpstreamRequestHead)
    /// The rest of the rules need I/O (a certificate refetch, a Redis limit): the exchange waits for
    /// ``GatewayResponder/decide(_:)`` on the connection's event loop, then goes on with ``GatewayResponder/resume(_:_:_:allocator:)``.
    case decide(DirectRequest, PendingDecision)
}

/// A request whose rules wait on I/O: what `directStart` had worked out, to finish them with.
struct PendingDecision: Sendable {
    let head: HTTPRequest
    let authorization: String?
    let route: Route
    let upstream: UpstreamRoute
    /// The upstream request's target.
    let target: String
    let peer: String?
    /// The request's body, when it came whole with its head.
    let body: ByteBuffer?
    var identity: Identity?
    /// A token signed with a key not held yet: verified once the certificates are refetched.
    var tokenToVerify: Substring?
}

/// What ``GatewayResponder/decide(_:)`` found, applied to the request on its event loop.
struct Decision: Sendable {
    var identity: Identity?
    var limit: RateLimiter.Answer?
    var limitOutcome: String?
    var error: GatewayError?
}

/// The direct path's half of the responder (``RawPathHandler`` and ``DirectPathHandler`` drive it): the same rules as
/// `respond`, for a request to an upstream route whose body, if any, came whole with its head, and for a request whose
/// method its route does not take (405). Rules that need no I/O are applied at once; a certificate refetch or a Redis
/// limit suspends the request (``DirectStart/decide(_:_:)``) and resumes it on the same connection. Any other request
/// is handed on before anything is counted, so each request goes through exactly one of the paths.
extension GatewayResponder {
    /// - Parameters:
    ///   - authorization: the `Authorization` value when the raw path kept it apart from `head`'s fields
    ///     (``RawRequestHead``); nil when it is among them, or absent.
    ///   - body: the request's body when the raw path read it whole with the head (its `Content-Length` is in
    ///     `head`); nil for a request that declares none.
    ///   - peer: the connection's peer address as text, worked out once per connection by its handler.
    func directStart(_ head: HTTPRequest, authorization: String? = nil, body: ByteBuffer? = nil, channel: any Channel, peer: String?) -> DirectStart {
        let fields = head.headerFields
        let uri = URI(head.path ?? "")
        guard let route = self.routes.route(for: uri.path),
            fields[.transferEncoding] == nil, fields[.expect] == nil, body != nil || Self.declaresNoBody(fields),
            (try? RequestFraming.check(head)) != nil, !RequestFraming.endsConnection(head)
        else { return .handOn }
        // A method the route does not take: 405 on any route, before authentication, as `respond` answers it. Handed
        // on, a method SwiftNIO's parser does not know (any token is a method, RFC 9110 §9.1) would be a 400 there.
        guard route.allows(head.method) else {
            return .refuse(self.directRequest(head, path: uri.path, route: route, peer: peer), .methodNotAllowed(allowed: route.methods))
        }
        guard let upstream = route.direct, !MaxForwards.endsHere(head),
            upstream.directPool.serves(channel.eventLoop),
            let target = upstream.target.path(path: uri.path, query: uri.query)
        else { return .handOn }
        let request = self.directRequest(head, path: uri.path, route: route, peer: peer)
        if let body, body.readableBytes > upstream.maxBodyBytes {
            return .refuse(request, .payloadTooLarge(limit: upstream.maxBodyBytes))
        }
        var pending = PendingDecision(
            head: head, authorization: authorization, route: route, upstream: upstream, target: target, peer: peer, body: body
        )
        if route.auth != .none {
            let clientAddress = { ClientAddress.resolve(peer: peer, headers: fields, trustedProxies: self.trustedProxies) }
            do {
                let outcome =
                    route.auth == .required
                    ? try self.authenticator.authenticateNow(fields, authorization: authorization, clientAddress: clientAddress)
                    : try self.authenticator.identifyNow(fields, authorization: authorization, clientAddress: clientAddress)
                switch outcome {
                case .identified(let identity):
                    pending.identity = identity
                case .needsKeyRefetch(let token):
                    pending.tokenToVerify = token
                    return .decide(request, pending)
                }
            } catch {
                self.metrics.authenticationFailed(reason: error.reason)
                return .refuse(request, error)
            }
            self.recordIdentity(pending.identity, of: request)
        }
        if let rule = route.rateLimit, let identity = pending.identity {
            guard self.rateLimiter.decidesWithoutWaiting else { return .decide(request, pending) }
            do {
                request.limit = try self.rateLimiter.checkNow(rule, key: identity.uid, outcome: &request.record.rateLimit)
            } catch {
                return .refuse(request, error)
            }
        }
        return self.forward(request, pending, allocator: channel.allocator)
    }

    /// The rules `directStart` left for I/O: the token's verification after a certificate refetch, then the rate limit.
    func decide(_ pending: PendingDecision) async -> Decision {
        var decision = Decision(identity: pending.identity)
        if let token = pending.tokenToVerify {
            let fields = pending.head.headerFields
            let clientAddress = { ClientAddress.resolve(peer: pending.peer, headers: fields, trustedProxies: self.trustedProxies) }
            do {
                decision.identity = try await self.authenticator.identify(refetchingKeysFor: token, clientAddress: clientAddress)
            } catch {
                self.metrics.authenticationFailed(reason: error.reason)
                decision.error = error
                return decision
            }
        }
        if let rule = pending.route.rateLimit, let identity = decision.identity {
            var outcome = ""
            do {
                decision.limit = try await self.rateLimiter.answer(rule, key: identity.uid, outcome: &outcome)
            } catch {
                decision.error = error
            }
            decision.limitOutcome = outcome
        }
        return decision
    }

    /// ``decide(_:)`` as a future on `eventLoop` when only the rate limit waits (no certificate refetch): the store is
    /// asked from the loop, with no task in between; nil when a task is needed.
    func decideOnLoop(_ pending: PendingDecision, eventLoop: any EventLoop) -> EventLoopFuture<Decision>? {
        guard pending.tokenToVerify == nil, let rule = pending.route.rateLimit, let identity = pending.identity else { return nil }
        return self.rateLimiter.answer(rule, key: identity.uid, on: eventLoop).map { result in
            Decision(identity: identity, limit: result.answer, limitOutcome: result.outcome, error: result.refusal)
        }
    }

    /// Applies a ``Decision`` to its request, on the connection's event loop: the upstream head, or the refusal.
    func resume(_ request: DirectRequest, _ pending: PendingDecision, _ decision: Decision, allocator: ByteBufferAllocator) -> DirectStart {
        if pending.tokenToVerify != nil, let identity = decision.identity { self.recordIdentity(identity, of: request) }
        if let outcome = decision.limitOutcome { request.record.rateLimit = outcome }
        request.limit = decision.limit
        if let error = decision.error { return .refuse(request, error) }
        var pending = pending
        pending.identity = decision.identity
        return self.forward(request, pending, allocator: allocator)
    }

    private func recordIdentity(_ identity: Identity?, of request: DirectRequest) {
        guard let identity else { return }
        request.record.authSource = identity.source.rawValue
        request.record.uid = identity.uid
        self.metrics.authenticated(source: identity.source)
    }

    /// The upstream request's head (and body), once every rule has passed.
    private func forward(_ request: DirectRequest, _ pending: PendingDecision, allocator: ByteBufferAllocator) -> DirectStart {
        let upstream = pending.upstream
        var upstreamHead = UpstreamRequestHead(
            method: pending.head.method, path: pending.target, authority: upstream.target.authority, allocator: allocator
        )
        do {
            try upstream.headers.write(
                for: pending.head, authorization: pending.authorization, requestID: request.requestID, identity: pending.identity,
                peer: pending.peer, now: WallClock.now(), into: &upstreamHead
            )
        } catch {
            return .refuse(request, error)
        }
        upstreamHead.end(body: pending.body, clientSentLength: pending.head.headerFields[.contentLength] != nil)
        return .forward(request, upstream, upstreamHead)
    }

    /// A request the direct path answers, from its arrival on (made only once the path has taken it: a request handed
    /// on gets its id, and its clock, from the async responder).
    private func directRequest(_ head: HTTPRequest, path: String, route: Route, peer: String?) -> DirectRequest {
        var record = RequestRecord()
        record.route = route.name
        // The access log's fields: worked out only when there is one to write.
        if self.accessLog != nil { record.noteRequest(head.headerFields, peer: peer, trustedProxies: self.trustedProxies, route: route) }
        return DirectRequest(
            start: .now, requestID: self.requestID(head.headerFields), method: head.method, path: path,
            closesConnection: HopByHopHeaders.listsClose(head.headerFields[.connection]), record: record
        )
    }

    /// No `Content-Length`, or `Content-Length: 0` (a `Transfer-Encoding` is checked apart).
    private static func declaresNoBody(_ fields: HTTPFields) -> Bool {
        switch fields.sole(.contentLength) {
        case .absent: true
        case .one(let length): length == "0"
        case .several: false
        }
    }

    /// The fields every direct answer carries after its own, written to `output`: the rate limit's fields, the request
    /// id, the date unless the answer has its own (an upstream's `Date` is kept: it is when the answer was made, RFC
    /// 9110 §6.6.1), and `Connection: close` when the client asked for it. The answer's own fields hold no
    /// `X-Request-ID` and no `Connection`.
    func appendDirectFields(to output: inout some FieldOutput, for request: DirectRequest, answerHasDate: Bool) {
        request.limit?.write(into: &output)
        output.append(Self.requestIDHeader, request.requestID)
        if !answerHasDate { output.append(.date, self.dates.value(now: WallClock.now())) }
        if request.closesConnection { output.append(.connection, "close") }
    }

    /// ``appendDirectFields(to:for:answerHasDate:)`` for an answer as `HTTPFields`, in place of any `X-Request-ID` or
    /// `Connection` they hold.
    func finishDirectFields(_ fields: inout HTTPFields, _ request: DirectRequest) {
        fields[Self.requestIDHeader] = nil
        if request.closesConnection { fields[.connection] = nil }
        self.appendDirectFields(to: &fields, for: request, answerHasDate: fields.contains(.date))
    }

    /// Writes an error answer as JSON (headers only for HEAD), flushed.
    func writeDirectError(_ error: GatewayError, for request: DirectRequest, to sink: any DirectAnswerSink) {
        request.record.errorReason = error.reason
        if error.status == .unauthorized || error.status == .serviceUnavailable {
            self.logger.debug("request refused", metadata: ["request_id": "\(request.requestID)", "reason": "\(error.reason)"])
        }
        let json = ErrorResponse.json(error, requestID: request.requestID, now: WallClock.now())
        var fields = ErrorResponse.fields(error)
        fields[.contentLength] = String(json.utf8.count)
        self.finishDirectFields(&fields, request)
        sink.writeHead(HTTPResponse(status: error.status, headerFields: fields), for: request)
        if request.method != .head { sink.writeBody(ByteBuffer(string: json)) }
        sink.writeEnd(for: request)
    }

    /// Counts and logs a finished direct request.
    func directFinished(_ request: DirectRequest, status: Int, upstream: UpstreamTiming?) {
        self.answered(
            requestID: request.requestID, method: request.method, path: request.path, status: status, since: request.start,
            record: request.record, upstream: upstream
        )
        self.metrics.requestFinished()
    }
}
