import NIOCore
import NIOSSL
import Synchronization

/// Keep-alive connections to one upstream, kept per event loop so a request and its upstream connection share a
/// thread. Idle connections are reused last-in first-out (the warmest first); a connection the upstream has closed
/// meanwhile is dropped when it is picked.
final class UpstreamPool: Sendable {
    let upstream: UpstreamURL
    let connectTimeout: TimeAmount
    /// Idle connections kept per event loop; more are closed when released.
    let maxIdlePerEventLoop: Int
    private let tls: NIOSSLContext?
    private let idle = Mutex<(byLoop: [ObjectIdentifier: [UpstreamConnection]], closed: Bool)>(([:], false))

    init(upstream: UpstreamURL, connectTimeout: TimeAmount, maxIdlePerEventLoop: Int) throws {
        self.upstream = upstream
        self.connectTimeout = connectTimeout
        self.maxIdlePerEventLoop = maxIdlePerEventLoop
        self.tls = upstream.scheme == "https" ? try NIOSSLContext(configuration: .makeClientConfiguration()) : nil
    }

    /// A connection on `eventLoop`: an idle one (`reused`), or a new one.
    func acquire(on eventLoop: any EventLoop) async throws -> (connection: UpstreamConnection, reused: Bool) {
        let key = ObjectIdentifier(eventLoop)
        while let connection = self.idle.withLock({ $0.byLoop[key]?.popLast() }) {
            if connection.channel.isActive { return (connection, true) }
            connection.close()
        }
        return (try await self.connect(on: eventLoop), false)
    }

    /// A new connection on `eventLoop`, not from the idle ones.
    func connect(on eventLoop: any EventLoop) async throws -> UpstreamConnection {
        try await UpstreamConnection.connect(to: self.upstream, on: eventLoop, timeout: self.connectTimeout, tls: self.tls)
    }

    /// Returns a connection whose exchange finished cleanly; anything else is closed.
    func release(_ connection: UpstreamConnection) {
        guard connection.isReusable, connection.channel.isActive else {
            connection.close()
            return
        }
        let key = ObjectIdentifier(connection.channel.eventLoop)
        let kept = self.idle.withLock { state -> Bool in
            guard !state.closed, state.byLoop[key, default: []].count < self.maxIdlePerEventLoop else { return false }
            state.byLoop[key, default: []].append(connection)
            return true
        }
        if !kept { connection.close() }
    }

    /// Closes the idle connections and every one released from now on.
    func shutdown() {
        let connections = self.idle.withLock { state -> [UpstreamConnection] in
            state.closed = true
            defer { state.byLoop = [:] }
            return state.byLoop.values.flatMap { $0 }
        }
        for connection in connections { connection.close() }
    }
}
