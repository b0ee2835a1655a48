#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import HTTPTypes
import HummingbirdCore
public import Logging
import NIOCore

/// A streaming HTTP/1.1 upstream on `127.0.0.1` and an ephemeral port, for reverse-proxy tests. Bodies are never
/// held whole: what it receives is counted and checked against ``BodyPattern`` chunk by chunk, what it sends is
/// produced the same way. Built on HummingbirdCore's server, like ``LocalHTTPServer``.
///
/// The first path segment it knows decides what it does (so any base path in front works):
///
/// | path | answer |
/// |---|---|
/// | `…/echo` | 200 JSON: `{"method", "path" (as received, with the query), "host", "headers": [[name, value]…], "bodyBytes", "bodyIntact"}` (the body is read and checked against ``BodyPattern``) |
/// | `…/stream/<n>` | 200 with `n` pattern bytes in 64 KiB chunks, `Content-Length: n` (none with `?chunked`) |
/// | `…/mirror` | 200, the request body sent back as it arrives (chunked) |
/// | `…/status/<code>` | that status, `X-Upstream-Status: <code>`, body `upstream status <code>` (after reading the request body) |
/// | `…/early/<code>` | the same, at once, without reading the request body |
/// | `…/hop` | 200 `hop` with hop-by-hop fields (`Connection: X-Hop-Secret`, `X-Hop-Secret`, `Keep-Alive`, `Upgrade`, `Trailer`, `Proxy-Authenticate`) beside end-to-end ones (`X-End-To-End`, `Proxy-Status`) |
/// | `…/delay/<ms>` | 200 `delayed` after `ms` milliseconds |
/// | `…/dated` | 200 `dated` with `Date: Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110's example date) |
/// | `…/hang` | never answers (until shutdown) |
/// | `…/stall/<n>` | 200 with `Content-Length: 2n`, then `n` pattern bytes, then nothing more (until shutdown) |
/// | `…/reset` | resets the connection (TCP RST) without answering |
/// | anything else | 404, `X-Upstream-Status: 404`, no body |
public final class UpstreamTestServer: LocalTestServer {
    private let listener: LocalListener

    private init(listener: LocalListener) {
        self.listener = listener
    }

    /// The port the server listens on.
    public var port: Int { self.listener.port }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(self.port)" }

    /// Requests received so far (counted before they are answered).
    public var requestCount: Int { self.listener.stats.requests }

    /// The requests received once there are at least `count` of them, or what there are after `limit`: a request
    /// the gateway gave up on (a timeout) may still be on its way through this server's parser.
    public func requestCount(reaching count: Int, within limit: Duration = .seconds(5)) async -> Int {
        let deadline = ContinuousClock.now + limit
        while self.requestCount < count, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return self.requestCount
    }

    /// Connections accepted so far.
    public var connectionCount: Int { self.listener.stats.accepted }

    /// Starts a server; returns once it listens.
    public static func start(logger: Logger = LocalHTTPServer.quietLogger) async throws -> UpstreamTestServer {
        let listener = try await LocalListener.start(logger: logger) { request, writer, channel in
            try await Self.respond(to: request, writer: writer, channel: channel)
        }
        return UpstreamTestServer(listener: listener)
    }

    /// Stops the server: graceful shutdown first, then hanging handlers are cancelled (as ``LocalHTTPServer``).
    public func shutdown() async {
        await self.listener.stop()
    }

    static let chunkSize = 64 * 1024
    /// The field that marks the test upstream's own non-2xx answers (tests tell them from the gateway's).
    static let statusMarker = HTTPField.Name("X-Upstream-Status")!
    static let commands: Set<Substring> = ["echo", "stream", "mirror", "status", "early", "hop", "delay", "dated", "hang", "stall", "reset"]

    private static func respond(to request: Request, writer: consuming ResponseWriter, channel: any Channel) async throws {
        let rawPath = request.head.path ?? "/"
        let pathOnly = rawPath.prefix { $0 != "?" }
        let segments = pathOnly.split(separator: "/")
        guard let index = segments.firstIndex(where: { Self.commands.contains($0) }) else {
            try await writer.writeResponse(
                HTTPResponse(status: .notFound, headerFields: [.contentLength: "0", Self.statusMarker: "404"])
            )
            return
        }
        let argument = segments.index(after: index) < segments.endIndex ? segments[segments.index(after: index)] : nil
        switch segments[index] {
        case "echo":
            var checker = BodyPattern.Checker()
            for try await buffer in request.body { checker.consume(buffer) }
            var headers: [[String]] = []
            for field in request.headers { headers.append([field.name.rawName, field.value]) }
            let object: [String: Any] = [
                "method": request.method.rawValue, "path": rawPath, "host": request.head.authority ?? NSNull(),
                "headers": headers, "bodyBytes": checker.count, "bodyIntact": checker.intact,
            ]
            let json = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            let head = HTTPResponse(status: .ok, headerFields: [.contentType: "application/json", .contentLength: String(json.count)])
            try await writer.write(response: head, body: ResponseBody(byteBuffer: ByteBuffer(bytes: json)))
        case "stream":
            let total = argument.flatMap { Int($0) } ?? 0
            var fields: HTTPFields = [.contentType: "application/octet-stream"]
            if !rawPath.contains("chunked") { fields[.contentLength] = String(total) }
            var body = try await writer.writeHead(HTTPResponse(status: .ok, headerFields: fields))
            var sent = 0
            while sent < total {
                let count = min(Self.chunkSize, total - sent)
                try await body.write(BodyPattern.buffer(offset: sent, count: count))
                sent += count
            }
            try await body.finish(nil)
        case "mirror":
            var body = try await writer.writeHead(HTTPResponse(status: .ok, headerFields: [.contentType: "application/octet-stream"]))
            for try await buffer in request.body { try await body.write(buffer) }
            try await body.finish(nil)
        case "status", "early":
            if segments[index] == "status" {
                for try await _ in request.body {}
            }
            let code = argument.flatMap { Int($0) }.flatMap { (200...599).contains($0) ? $0 : nil } ?? 500
            let text = "upstream status \(code)"
            let head = HTTPResponse(
                status: .init(code: code),
                headerFields: [
                    .contentType: "text/plain", .contentLength: String(text.utf8.count), Self.statusMarker: String(code),
                ]
            )
            try await writer.write(response: head, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        case "hop":
            for try await _ in request.body {}
            var fields = HTTPFields()
            for (name, value) in [
                ("Connection", "X-Hop-Secret"), ("X-Hop-Secret", "1"), ("Keep-Alive", "timeout=5"), ("Upgrade", "h2c"),
                ("Trailer", "X-Checksum"), ("Proxy-Authenticate", "Basic realm=\"upstream\""), ("X-End-To-End", "kept"),
                ("Proxy-Status", "upstream; error=none"), ("Content-Type", "text/plain"), ("Content-Length", "3"),
            ] {
                fields.append(HTTPField(name: HTTPField.Name(name)!, value: value))
            }
            try await writer.write(response: HTTPResponse(status: .ok, headerFields: fields), body: ResponseBody(byteBuffer: ByteBuffer(string: "hop")))
        case "delay":
            try await Task.sleep(for: .milliseconds(argument.flatMap { Int($0) } ?? 0))
            let head = HTTPResponse(status: .ok, headerFields: [.contentType: "text/plain", .contentLength: "7"])
            try await writer.write(response: head, body: ResponseBody(byteBuffer: ByteBuffer(string: "delayed")))
        case "dated":
            let head = HTTPResponse(
                status: .ok, headerFields: [.contentType: "text/plain", .contentLength: "5", .date: "Sun, 06 Nov 1994 08:49:37 GMT"]
            )
            try await writer.write(response: head, body: ResponseBody(byteBuffer: ByteBuffer(string: "dated")))
        case "hang":
            try await Task.sleep(for: .seconds(3600))
        case "stall":
            let count = argument.flatMap { Int($0) } ?? 0
            var body = try await writer.writeHead(
                HTTPResponse(status: .ok, headerFields: [.contentType: "application/octet-stream", .contentLength: String(2 * count)])
            )
            try await body.write(BodyPattern.buffer(offset: 0, count: count))
            try await Task.sleep(for: .seconds(3600))
        default:  // "reset"
            // SO_LINGER on with a zero timeout turns close() into a reset.
            if let provider = channel as? any SocketOptionProvider {
                try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
            }
            try? await channel.close()
        }
    }
}

/// Runs `body` with a fresh ``UpstreamTestServer`` and shuts the server down afterwards, whether `body` returns or throws.
@discardableResult
public func withUpstreamTestServer<Result: Sendable>(_ body: (UpstreamTestServer) async throws -> Result) async throws -> Result {
    try await withShutdown(try await UpstreamTestServer.start(), body)
}
