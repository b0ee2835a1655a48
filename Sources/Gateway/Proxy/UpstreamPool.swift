import GatewayConfig
import NIOCore
import NIOSSL
import Synchronization

/// Keep-alive connections to one upstream, kept per event loop so a request and its upstream connection share a
/// thread. Idle connections are reused last-in first-out (the warmest first); a connection the upstream has closed
/// meanwhile is dropped when it is picked, and one idle for `idleTimeout` is closed (a timer on its event loop,
/// cancelled when the connection is picked again).
final class UpstreamPool: Sendable {
    let upstream: UpstreamURL
    let connectTimeout: TimeAmount
    /// Idle connections kept per event loop; more are closed when released.
    let maxIdlePerEventLoop: Int
    /// How long a connection may wait in the pool (`proxy.idle_timeout_seconds`).
    let idleTimeout: TimeAmount
    let tls: NIOSSLContext?
    private let idle = Mutex<(byLoop: [ObjectIdentifier: [Idle]], closed: Bool)>(([:], false))

    /// A connection waiting in the pool, and the timer that closes it.
    private struct Idle: Sendable {
        let connection: UpstreamConnection
        let expiry: Scheduled<Void>
    }

    init(upstream: UpstreamURL, connectTimeout: TimeAmount, maxIdlePerEventLoop: Int, idleTimeout: TimeAmount = .seconds(60)) throws {
        self.upstream = upstream
        self.connectTimeout = connectTimeout
        self.maxIdlePerEventLoop = maxIdlePerEventLoop
        self.idleTimeout = idleTimeout
        self.tls = upstream.scheme == "https" ? try NIOSSLContext(configuration: .makeClientConfiguration()) : nil
    }

    /// A connection on `eventLoop`: an idle one (`reused`), or a new one.
    func acquire(on eventLoop: any EventLoop) async throws -> (connection: UpstreamConnection, reused: Bool) {
        let key = ObjectIdentifier(eventLoop)
        while let idle = self.idle.withLock({ $0.byLoop[key]?.popLast() }) {
            idle.expiry.cancel()
            if idle.connection.channel.isActive { return (idle.connection, true) }
            idle.connection.close()
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
        let expiry = connection.channel.eventLoop.scheduleTask(in: self.idleTimeout) { [weak self] () -> Void in
            self?.expire(connection, key: key)
        }
        let kept = self.idle.withLock { state -> Bool in
            guard !state.closed, state.byLoop[key, default: []].count < self.maxIdlePerEventLoop else { return false }
            state.byLoop[key, default: []].append(Idle(connection: connection, expiry: expiry))
            return true
        }
        if !kept {
            expiry.cancel()
            connection.close()
        }
    }

    /// Closes `connection` if it is still waiting in the pool (its idle timer fired).
    private func expire(_ connection: UpstreamConnection, key: ObjectIdentifier) {
        let expired = self.idle.withLock { state -> Bool in
            guard let index = state.byLoop[key]?.firstIndex(where: { $0.connection === connection }) else { return false }
            state.byLoop[key]?.remove(at: index)
            return true
        }
        if expired { connection.close() }
    }

    /// Connections waiting in the pool, on every event loop.
    var idleCount: Int { self.idle.withLock { $0.byLoop.values.reduce(0) { $0 + $1.count } } }

    /// Closes the idle connections and every one released from now on.
    func shutdown() {
        let connections = self.idle.withLock { state -> [Idle] in
            state.closed = true
            defer { state.byLoop = [:] }
            return state.byLoop.values.flatMap { $0 }
        }
        for idle in connections {
            idle.expiry.cancel()
            idle.connection.close()
        }
    }
}
