import HTTPTypes
import HummingbirdCore
import IDTokens
import Logging
import NIOCore

/// Turns each request into a response: request id, route, method, authentication, handler, and every error
/// rendered as JSON in one place. Nothing a client sends produces a 500 or a crash.
struct GatewayResponder: Sendable {
    let routes: RouteTable
    let authenticator: Authenticator
    let rateLimiter: RateLimiter
    let trustedProxies: [IPAddressRange]
    let requestIDs = RequestIDGenerator()
    let dates = DateHeaderCache()
    let logger: Logger

    static let requestIDHeader = HTTPField.Name("X-Request-ID")!

    func respond(to request: Request, writer: consuming ResponseWriter, channel: any Channel) async throws {
        let incomingID = request.headers[values: Self.requestIDHeader]
        let requestID = incomingID.count == 1 && RequestIDGenerator.isAcceptable(incomingID[0]) ? incomingID[0] : self.requestIDs.next()
        var response = await self.response(to: request, requestID: requestID, channel: channel)
        response.headers[Self.requestIDHeader] = requestID
        response.headers[.date] = self.dates.value(now: WallClock.now())
        if request.method == .head {
            // Same headers as GET, no body (RFC 9110 §9.3.2).
            var headers = response.headers
            if let length = response.body.contentLength { headers[.contentLength] = String(length) }
            response = Response(status: response.status, headers: headers, body: ResponseBody())
        }
        try await writer.write(response: response.head, body: response.body)
    }

    private func response(to request: Request, requestID: String, channel: any Channel) async -> Response {
        do {
            guard let route = self.routes.route(for: request.uri.path) else { throw GatewayError.notFound() }
            guard route.allows(request.method) else { throw GatewayError.methodNotAllowed(allowed: route.methods) }
            let clientAddress = {
                ClientAddress.resolve(peer: channel.remoteAddress, headers: request.headers, trustedProxies: self.trustedProxies)
            }
            let identity: Identity?
            switch route.auth {
            case .required: identity = try await self.authenticator.authenticate(request.headers, clientAddress: clientAddress)
            case .optional: identity = try await self.authenticator.identify(request.headers, clientAddress: clientAddress)
            case .none: identity = nil
            }
            var limitHeaders: HTTPFields?
            if let rule = route.rateLimit, let identity {
                limitHeaders = try await self.rateLimiter.check(rule, key: identity.uid)
            }
            var response = try await route.handler(request, RequestContext(requestID: requestID, identity: identity, channel: channel))
            if let limitHeaders { response.headers.append(contentsOf: limitHeaders) }
            return response
        } catch let error as GatewayError {
            if error.status == .unauthorized || error.status == .serviceUnavailable {
                self.logger.debug("request refused", metadata: ["request_id": "\(requestID)", "reason": "\(error.reason)"])
            }
            return ErrorResponse.make(error, requestID: requestID, now: WallClock.now())
        } catch is CancellationError {
            // The client left (or the gateway is stopping) while a handler worked: nobody reads this answer.
            return ErrorResponse.make(
                GatewayError(status: .serviceUnavailable, code: "UNAVAILABLE", message: "The request was cancelled.", reason: "cancelled"),
                requestID: requestID, now: WallClock.now()
            )
        } catch {
            // A handler bug, not the client's fault: log the type only (errors may carry request data).
            self.logger.error("unhandled error", metadata: ["request_id": "\(requestID)", "error_type": "\(type(of: error))"])
            return ErrorResponse.make(.internalError(), requestID: requestID, now: WallClock.now())
        }
    }
}
