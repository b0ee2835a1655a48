import HTTPTypes
import HummingbirdCore
import IDTokens
import Logging
import NIOCore
import NIOHTTP1
import Prometheus
import NIOHTTPTypes

/// Forwards one route's requests to its upstream and streams the answer back. Everything that does not depend
/// on the request (the upstream, the header rules, the limits) is worked out once, when the route is built.
///
/// A request's life, all on the client connection's event loop: a declared `Content-Length` over the limit is a
/// 413 before anything is sent; a pooled keep-alive connection on the same event loop (or a new one) carries the
/// head and then the body, streamed and counted (cut off with 413 past the limit); the route's timeout bounds the
/// wait for the response head once the request is sent, and each part of the body the upstream is slow to take
/// (504, ``InactivityDeadline``); a client that stops sending its body is a 408 (``ConnectionGuard``); a failure before
/// the head is a 502 (an idempotent request without a body that fails on a reused connection — one the upstream
/// closed meanwhile — is retried once on a new connection); after the head, status, fields (less the hop-by-hop ones)
/// and body pass through unchanged, streamed, and the connection goes back to the pool once the answer has been read
/// to its end.
struct UpstreamForwarder: Sendable {
    let route: UpstreamRoute
    /// The task path's connections.
    let pool: UpstreamPool

    /// Answers up to this size with a declared length are read whole before the client's answer is written.
    static let smallBodyBytes = 64 * 1024

    typealias Failure = UpstreamRoute.Failure

    func forward(_ request: Request, context: RequestContext) async throws -> Response {
        // A declared length over the limit never gets here: the responder refuses it against `Route.maxBodyBytes`,
        // which is this route's limit too. A chunked body is counted as it streams.
        let declaredLength = request.headers[.contentLength].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
        guard let path = self.route.target.path(path: request.uri.path, query: request.uri.query) else { throw GatewayError.dotSegmentInPath() }
        var fields = try self.route.headers.fields(
            for: request.head, requestID: context.requestID, identity: context.identity,
            peer: context.channel.remoteAddress?.ipAddress, now: WallClock.now()
        )
        // HTTP/1.1 framing (RFC 9112 §6.3): a body exactly when there is a Content-Length or a Transfer-Encoding.
        let hasBody = declaredLength.map { $0 > 0 } ?? request.headers.contains(.transferEncoding)
        // The framing is always written out. SwiftNIO's encoder adds `Transfer-Encoding: chunked` by itself only for
        // POST, PUT and PATCH: the body of a GET, HEAD, DELETE or OPTIONS would follow a head that declares none, and
        // the upstream would read it as a request of its own (smuggled past every rule here).
        if let declaredLength {
            fields[.contentLength] = String(declaredLength)
        } else if hasBody {
            fields[.transferEncoding] = "chunked"
        }
        let head = HTTPRequest(method: request.method, scheme: nil, authority: self.route.target.authority, path: path, headerFields: fields)

        let sent = ContinuousClock.now
        let (connection, response, upload): (UpstreamConnection, HTTPResponse, UpstreamUpload?)
        do {
            (connection, response, upload) = try await self.exchange(head, body: hasBody ? request.body : nil, context: context)
        } catch let failure as Failure {
            throw self.route.answer(failure, requestID: context.requestID)
        }
        let waited = sent.duration(to: .now)
        self.route.upstreamLatency.record(waited)
        context.upstream?.record(waited)

        let fieldsOut = HopByHopHeaders.responseFields(response.headerFields)
        if HopByHopHeaders.listsClose(response.headerFields[.connection]) { connection.markNotReusable() }
        let pool = self.pool
        // A small answer (the usual JSON) is read whole — it is almost always in the same TCP segment as the head —
        // and written to the client as head, body and end at once: one write(2) instead of three.
        let bodyless = request.method == .head || response.status == .noContent || response.status == .notModified
        let timeout = self.route.timeout
        let eventLoop = connection.channel.eventLoop
        let client = context.channel
        if upload == nil, !bodyless, let length = response.headerFields[.contentLength].flatMap({ Int($0) }), length <= Self.smallBodyBytes {
            var collected = ByteBuffer()
            let stalled = InactivityDeadline(timeout: timeout, on: eventLoop) { connection.close() }
            defer { stalled.stop() }
            do {
                reading: while let part = try await connection.next() {
                    stalled.touch()
                    switch part {
                    case .head: throw Failure.unreachable("unexpected_head")
                    case .body(var buffer): collected.writeBuffer(&buffer)
                    case .end: break reading
                    }
                }
                guard collected.readableBytes == length else { throw Failure.unreachable("closed_mid_body") }
            } catch {
                connection.close()
                throw self.route.answer((error as? Failure) ?? .unreachable("closed_mid_body"), requestID: context.requestID)
            }
            // Released only if the deadline did not fire: it closes the connection, which must not carry another exchange.
            if stalled.stop() { pool.release(connection) }
            return Response(status: response.status, headers: fieldsOut, body: ResponseBody(byteBuffer: collected))
        }
        return Response(
            status: response.status, headers: fieldsOut,
            body: ResponseBody(contentLength: nil) { writer in
                // An answer that stops moving (the upstream stalls, or the client stops reading) is cut off: both
                // connections close, which also ends a write waiting for a client that no longer reads.
                let stalled = InactivityDeadline(timeout: timeout, on: eventLoop) {
                    connection.close()
                    client.close(promise: nil)
                }
                defer { stalled.stop() }
                var ended = false
                do {
                    reading: while let part = try await connection.next() {
                        stalled.touch()
                        switch part {
                        case .head:
                            throw Failure.unreachable("unexpected_head")
                        case .body(let buffer):
                            try await writer.write(buffer)
                            stalled.touch()
                        case .end:
                            ended = true
                            break reading
                        }
                    }
                    // The upstream closed before the end of its body: the client's connection closes, truncated.
                    guard ended else { throw Failure.unreachable("closed_mid_body") }
                } catch {
                    connection.close()
                    _ = await upload?.stop()
                    throw error
                }
                // The request must be all sent for the connection to carry another exchange; an upstream that answered
                // early gets no more of it.
                if let upload, await upload.stop() != .completed { connection.markNotReusable() }
                // Released after the client's end (the deadline still covers a client that stops reading), whether or
                // not that end could be written, and only if the deadline did not fire: once released, the connection
                // may carry another exchange at once, so nothing here may close it.
                defer { if stalled.stop() { pool.release(connection) } }
                try await writer.finish(nil)
            }
        )
    }

    /// Sends the request and waits for the response head; on a reused connection that fails before any answer,
    /// an idempotent body-less request is tried once more on a new connection.
    private func exchange(
        _ head: HTTPRequest, body: RequestBody?, context: RequestContext
    ) async throws -> (UpstreamConnection, HTTPResponse, UpstreamUpload?) {
        let (connection, reused) = try await self.connection(on: context.channel.eventLoop)
        do {
            let (response, upload) = try await self.send(head, body: body, on: connection, context: context)
            return (connection, response, upload)
        } catch Failure.unreachable(Self.closedBeforeAnswer)
            where reused && body == nil && UpstreamRoute.retriesOnStaleConnection(head.method) && !Task.isCancelled
        {
            let fresh = try await self.newConnection(on: context.channel.eventLoop)
            let (response, upload) = try await self.send(head, body: body, on: fresh, context: context)
            return (fresh, response, upload)
        }
    }

    private func connection(on eventLoop: any EventLoop) async throws -> (UpstreamConnection, Bool) {
        do {
            return try await self.pool.acquire(on: eventLoop)
        } catch {
            throw Failure.unreachable(UpstreamRoute.label(error))
        }
    }

    private func newConnection(on eventLoop: any EventLoop) async throws -> UpstreamConnection {
        do {
            return try await self.pool.connect(on: eventLoop)
        } catch {
            throw Failure.unreachable(UpstreamRoute.label(error))
        }
    }

    /// One exchange up to the response head. A body streams up in its own task while the head is awaited (an
    /// upstream may answer, or mirror, before it has read everything). The route's timeout (from the request sent
    /// whole, and on each part of a body the upstream is slow to take; held while the upload waits for the client) and
    /// the client going away both close the upstream connection, which ends whatever is waiting on it.
    private func send(
        _ head: HTTPRequest, body: RequestBody?, on connection: UpstreamConnection, context: RequestContext
    ) async throws -> (HTTPResponse, UpstreamUpload?) {
        let clock = InactivityDeadline(timeout: self.route.timeout, on: connection.channel.eventLoop) { connection.close() }
        defer { clock.stop() }
        let watcher = await context.closeWatcher()
        // A client that half-closes after its request still gets the answer (RFC 9112 §9.6).
        watcher?.watch(onHalfClose: false) { connection.close() }
        defer { watcher?.unwatch() }
        var upload: UpstreamUpload?
        // The upstream has sent something (perhaps refused as malformed), so it has read the request: never sent again.
        var answered = false
        do {
            try await withTaskCancellationHandler {
                if let body {
                    try await connection.outbound.write(.head(head))
                    clock.hold()
                    upload = UpstreamUpload.start(body, to: connection, limit: self.route.maxBodyBytes, clock: clock)
                } else {
                    // One flush, one write(2), for a request without a body.
                    try await connection.outbound.write(contentsOf: [.head(head), .end(nil)])
                }
            } onCancel: {
                connection.close()
            }
            while let part = try await connection.next() {
                answered = true
                guard case .head(let response) = part else { continue }
                // Interim answers (1xx) are not passed on; the final head follows. The gateway never switches protocols.
                if response.status.kind == .informational, response.status != .switchingProtocols { continue }
                // Refused, as the direct path's parser refuses them, never passed on: a status outside 100–599 (not
                // HTTP, RFC 9110 §15; SwiftNIO's parser reads `099` as 99), and a transfer coding other than
                // `chunked` (SwiftNIO's parser undoes only the chunking, so `gzip, chunked` would go on as gzip
                // bytes with nothing saying so).
                let passable =
                    response.status.kind != .invalid && response.status != .switchingProtocols
                    && RequestFraming.hasChunkedOrNoTransferCoding(response.headerFields)
                guard passable else { break }
                return (response, upload)
            }
        } catch is HTTPParserError {
            answered = true
        } catch {}
        // Whether the deadline ended the exchange (`stop` says it got there first).
        let timedOut = !clock.stop()
        connection.close()
        switch await upload?.stop() {
        case .tooLarge?: throw Failure.tooLarge
        case .clientBodyFailed?: throw Failure.clientBodyFailed
        case .clientBodyTimedOut?: throw Failure.clientBodyTimedOut
        default: break
        }
        if timedOut { throw Failure.timeout }
        throw Failure.unreachable(answered ? "invalid_answer" : Self.closedBeforeAnswer)
    }

    /// The failure of an exchange whose connection closed before the upstream sent anything: the one retried.
    static let closedBeforeAnswer = "closed_before_answer"
}
