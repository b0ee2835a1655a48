import HTTPTypes
import HummingbirdCore
public import Logging
import NIOCore

/// A real HTTP/1.1 server on `127.0.0.1` and an ephemeral port, for tests: every request goes to one
/// async handler. Built on HummingbirdCore's server.
///
/// - A handler may `try await Task.sleep(…)` to add latency or hang; it is cancelled at ``shutdown()``.
/// - A handler that throws makes the server close the connection without answering.
/// - ``connectionCount`` and ``waitForClosedConnections(atLeast:)`` show what the client did with its connections.
///
/// Prefer the scoped ``withLocalHTTPServer(logger:_:_:)``, which always shuts the server down.
public final class LocalHTTPServer: LocalTestServer {
    /// A request handler.
    public typealias Handler = @Sendable (LocalRequest) async throws -> LocalResponse

    /// The largest request body the server reads (1 MiB); a larger one closes the connection.
    public static let maxRequestBodyBytes = 1 << 20

    private let listener: LocalListener

    private init(listener: LocalListener) {
        self.listener = listener
    }

    /// The port the server listens on.
    public var port: Int { self.listener.port }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(self.port)" }

    /// Requests received so far (counted before the handler runs).
    public var requestCount: Int { self.listener.stats.requests }

    /// Connections accepted so far.
    public var connectionCount: Int { self.listener.stats.accepted }

    /// Connections closed so far (by the client, counted when its half-close or close arrives).
    public var closedConnectionCount: Int { self.listener.stats.closed }

    /// Returns once at least `count` connections have been closed, or when the calling task is cancelled.
    public func waitForClosedConnections(atLeast count: Int) async {
        await self.listener.stats.waitForClosed(atLeast: count)
    }

    /// Starts a server answering every request with `handler`; returns once it listens.
    ///
    /// - Parameters:
    ///   - backlog: The listen backlog (the kernel caps it at `net.core.somaxconn`). Default 256.
    ///   - logger: The server's logger. Default: ``quietLogger``.
    public static func start(
        backlog: Int = 256,
        logger: Logger = LocalHTTPServer.quietLogger,
        _ handler: @escaping Handler
    ) async throws -> LocalHTTPServer {
        let listener = try await LocalListener.start(backlog: backlog, logger: logger) { request, responseWriter, _ in
            try await Self.respond(to: request, writer: responseWriter, handler: handler)
        }
        return LocalHTTPServer(listener: listener)
    }

    /// Stops the server: closes the listener first (graceful shutdown: nothing new is accepted), then, after a
    /// moment, cancels handlers that hang on purpose. Cancelling first would race with connections being accepted,
    /// which NIO answers with a crash ("Deinited NIOAsyncWriter without calling finish()").
    public func shutdown() async {
        await self.listener.stop()
    }

    /// A logger at `critical` level: tests are not flooded with server start messages, nor with the
    /// errors HummingbirdCore logs when a server task is cancelled at shutdown.
    public static var quietLogger: Logger {
        var logger = Logger(label: "LocalHTTPServer")
        logger.logLevel = .critical
        return logger
    }

    private static func respond(to request: Request, writer: consuming ResponseWriter, handler: Handler) async throws {
        var request = request
        let body = try await request.collectBody(upTo: Self.maxRequestBodyBytes)
        let localRequest = LocalRequest(
            method: request.method.rawValue,
            path: request.head.path ?? "/",
            headers: request.headers.map { (name: $0.name.rawName, value: $0.value) },
            body: Array(buffer: body)
        )
        let response = try await handler(localRequest)
        var fields = HTTPFields()
        for (name, value) in response.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        fields[.contentLength] = String(response.body.count)
        let head = HTTPResponse(status: .init(code: response.status), headerFields: fields)
        try await writer.write(response: head, body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.body)))
    }
}
