import AsyncHTTPClient
import HTTPTypes
import HummingbirdCore
import IDTokens
import Logging
import NIOCore
import NIOHTTP1

/// Forwards one route's requests to its upstream and streams the answer back. Everything that does not depend
/// on the request (the base URL, the header rules, the limits) is worked out once, when the route is built.
///
/// A request's life: a declared `Content-Length` over the limit is a 413 before anything is sent; the body, if
/// any, streams through a ``RequestBodyPump`` (cut off with 413 past the limit); the route's timeout bounds the
/// wait for the response head (504); a failure before the head is a 502; after it, status, fields (less the
/// hop-by-hop ones) and body pass through unchanged, streamed.
struct UpstreamForwarder: Sendable {
    let routeName: String
    let target: UpstreamTarget
    let headers: UpstreamRequestHeaders
    let client: UpstreamClient
    let timeout: TimeAmount
    let maxBodyBytes: Int
    let metrics: GatewayMetrics
    let logger: Logger

    func forward(_ request: Request, context: RequestContext) async throws -> Response {
        let declaredLength = request.headers[.contentLength].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
        if let declaredLength, declaredLength > self.maxBodyBytes { throw GatewayError.payloadTooLarge(limit: self.maxBodyBytes) }
        guard let url = self.target.url(path: request.uri.path, query: request.uri.query) else { throw GatewayError.dotSegmentInPath() }

        var upstreamRequest = HTTPClientRequest(url: url)
        upstreamRequest.method = HTTPMethod(rawValue: request.method.rawValue)
        upstreamRequest.headers = self.headers.fields(
            for: request, requestID: context.requestID, identity: context.identity,
            peer: context.channel.remoteAddress?.ipAddress, now: WallClock.now()
        )
        // HTTP/1.1 framing (RFC 9112 §6.3): a body exactly when there is a Content-Length or a Transfer-Encoding.
        let pump: RequestBodyPump?
        if declaredLength.map({ $0 > 0 }) ?? request.headers.contains(.transferEncoding) {
            let bodyPump = RequestBodyPump(body: request.body, limit: self.maxBodyBytes)
            upstreamRequest.body = .stream(bodyPump.relay.buffers, length: declaredLength.map { .known(Int64($0)) } ?? .unknown)
            pump = bodyPump
        } else {
            if declaredLength == 0 { upstreamRequest.body = .bytes(ByteBuffer()) }
            pump = nil
        }

        let response: HTTPClientResponse
        let sent = ContinuousClock.now
        do {
            let client = self.client.http
            let deadline = NIODeadline.now() + self.timeout
            response = try await context.cancellingWhenClientLeaves { [upstreamRequest] in
                try await client.execute(upstreamRequest, deadline: deadline)
            }
        } catch {
            await pump?.stop()
            throw self.failure(error, requestID: context.requestID)
        }
        let waited = sent.duration(to: .now)
        self.metrics.upstreamAnswered(route: self.routeName, duration: waited)
        context.upstream?.record(waited)

        let status = HTTPResponse.Status(code: Int(response.status.code), reasonPhrase: response.status.reasonPhrase)
        let fields = HopByHopHeaders.responseFields(response.headers)
        if request.method == .head {
            // The gateway drops a HEAD answer's body; end the exchange here so nothing is left running.
            for try await _ in response.body {}
            await pump?.stop()
            return Response(status: status, headers: fields, body: ResponseBody(contentLength: nil) { try await $0.finish(nil) })
        }
        let body = response.body
        return Response(
            status: status, headers: fields,
            body: ResponseBody(contentLength: nil) { writer in
                do {
                    for try await buffer in body {
                        try await writer.write(buffer)
                    }
                } catch {
                    // The upstream broke off mid-body, or the client left: the connection closes, truncating the answer.
                    await pump?.stop()
                    throw error
                }
                await pump?.stop()
                try await writer.finish(nil)
            }
        )
    }

    /// The error a failed upstream exchange is answered with.
    private func failure(_ error: any Error, requestID: String) -> any Error {
        switch error {
        case is CancellationError, is GatewayError:
            return error
        case is RequestBodyPump.TooLarge:
            return GatewayError.payloadTooLarge(limit: self.maxBodyBytes)
        case is RequestBodyPump.ClientBodyFailed:
            return GatewayError.unreadableRequestBody()
        case let error as HTTPClientError where error == .deadlineExceeded:
            self.metrics.upstreamFailed(route: self.routeName, kind: "timeout")
            self.logger.debug("upstream timeout", metadata: ["route": "\(self.routeName)", "request_id": "\(requestID)"])
            return GatewayError.upstreamTimeout()
        default:
            let reason = (error as? HTTPClientError).map { Self.label($0.shortDescription) } ?? Self.label("\(type(of: error))")
            self.metrics.upstreamFailed(route: self.routeName, kind: "unreachable")
            self.logger.debug(
                "upstream unreachable", metadata: ["route": "\(self.routeName)", "request_id": "\(requestID)", "reason": "\(reason)"]
            )
            return GatewayError.upstreamUnreachable(reason: reason)
        }
    }

    /// `Connect timeout` → `connect_timeout`: a snake_case metric label.
    private static func label(_ text: String) -> String {
        String(text.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}
