import AsyncHTTPClient
import NIOCore
import NIOPosix
import Synchronization

/// The pooled HTTP client every upstream route shares: async-http-client on the server's own event loops,
/// keep-alive connections per upstream, no redirects followed, no decompression (bodies pass through as sent).
///
/// A refused or failed connection fails the requests waiting for it at once (502) instead of retrying with
/// backoff until the connect timeout: a proxy should say "unreachable" quickly, and the next request tries again.
final class UpstreamClient: Sendable {
    /// How long a pooled connection may stay idle before it is closed.
    static let idleTimeout = TimeAmount.seconds(60)

    let http: HTTPClient
    private let isShutDown = Atomic<Bool>(false)

    init(settings: ProxySettings) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .nanoseconds(Int64(settings.connectTimeoutSeconds * 1_000_000_000))),
            decompression: .disabled
        )
        configuration.connectionPool.idleTimeout = Self.idleTimeout
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = settings.maxConnectionsPerUpstream
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.httpVersion = .http1Only
        self.http = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }

    /// Closes the pooled connections; requests still running fail.
    func shutdown() async throws {
        guard !self.isShutDown.exchange(true, ordering: .relaxed) else { return }
        try await self.http.shutdown()
    }

    deinit {
        // An application built but never run (a configuration check, a test) still owns a client: release it
        // without blocking (async-http-client insists on a shutdown).
        if !self.isShutDown.load(ordering: .relaxed) {
            _ = self.http.shutdown() as EventLoopFuture<Void>
        }
    }
}
