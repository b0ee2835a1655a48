package import NIOCore
package import NIOPosix
package import NIOSSL

/// Idle ``UpstreamConnection``s to one upstream, a list per event loop, each list touched only on its own loop: no
/// lock on the hot path. Reuse is last-in first-out (the warmest first); a connection the upstream has closed
/// meanwhile is dropped when picked, and one idle for `idleTimeout` is closed.
package final class UpstreamPool: Sendable {
    package let host: String
    package let port: Int
    package let connectTimeout: TimeAmount
    package let maxIdlePerEventLoop: Int
    package let idleTimeout: TimeAmount
    private let tls: NIOSSLContext?
    /// One per event loop of the group: a handful, found by identity (cheaper than hashing, three times a request).
    private let loops: [LoopIdle]

    /// One loop's idle connections; confined to that loop.
    private final class LoopIdle: @unchecked Sendable {
        let eventLoop: any EventLoop
        var connections: [UpstreamConnection] = []
        var closed = false

        init(eventLoop: any EventLoop) {
            self.eventLoop = eventLoop
        }
    }

    /// - Parameters:
    ///   - tls: TLS for an https upstream (``systemTrustTLS()``), nil for plain HTTP.
    ///   - group: the event loops the server's connections run on.
    package init(
        host: String, port: Int, tls: NIOSSLContext?, connectTimeout: TimeAmount, maxIdlePerEventLoop: Int, idleTimeout: TimeAmount,
        group: MultiThreadedEventLoopGroup = .singleton
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.connectTimeout = connectTimeout
        self.maxIdlePerEventLoop = maxIdlePerEventLoop
        self.idleTimeout = idleTimeout
        self.loops = group.makeIterator().map { LoopIdle(eventLoop: $0) }
    }

    /// TLS whose upstream certificates are verified against the system's trust roots, and against the upstream's
    /// host name (or, for an IP address, which is no server name, against the address connected to).
    package static func systemTrustTLS() throws -> NIOSSLContext {
        try NIOSSLContext(configuration: .makeClientConfiguration())
    }

    private func idle(on eventLoop: any EventLoop) -> LoopIdle? {
        self.loops.first { $0.eventLoop === eventLoop }
    }

    /// An idle connection on `eventLoop` (called on it), or nil.
    package func lease(on eventLoop: any EventLoop) -> UpstreamConnection? {
        guard let idle = self.idle(on: eventLoop) else { return nil }
        while let connection = idle.connections.popLast() {
            if connection.isActive && connection.isReusable {
                connection.leased()
                return connection
            }
            connection.close()
        }
        return nil
    }

    /// A new connection on `eventLoop`.
    package func connect(on eventLoop: any EventLoop) -> EventLoopFuture<UpstreamConnection> {
        let (host, tls) = (self.host, self.tls)
        return ClientBootstrap(group: eventLoop).connectTimeout(self.connectTimeout).channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        // An IP address is no server name (SNI): NIOSSL then checks the certificate against the peer's address.
                        let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: isAddress ? nil : host))
                    }
                    try channel.pipeline.syncOperations.addHandler(UpstreamConnection())
                }
            }
            .connect(host: self.host, port: self.port)
            .flatMapThrowing { channel in try channel.pipeline.syncOperations.handler(type: UpstreamConnection.self) }
    }

    /// Takes back a connection whose exchange finished cleanly (called on its event loop); anything else is closed.
    package func release(_ connection: UpstreamConnection, on eventLoop: any EventLoop) {
        guard connection.isReusable, connection.isActive, let idle = self.idle(on: eventLoop), !idle.closed else {
            connection.close()
            return
        }
        if idle.connections.count >= self.maxIdlePerEventLoop {
            // Connections closed while idle (their idle time ran out, or the upstream closed them) stay listed until
            // picked; make room by dropping them first.
            idle.connections.removeAll { !$0.isActive }
            guard idle.connections.count < self.maxIdlePerEventLoop else {
                connection.close()
                return
            }
        }
        connection.idle(for: self.idleTimeout)
        idle.connections.append(connection)
    }

    /// Open idle connections on every loop (for tests; hops to each loop).
    package func idleCount() async -> Int {
        var count = 0
        for idle in self.loops {
            count += (try? await idle.eventLoop.submit { idle.connections.count { $0.isActive } }.get()) ?? 0
        }
        return count
    }

    /// Closes the idle connections and every one released from now on.
    package func shutdown() {
        for idle in self.loops {
            idle.eventLoop.execute {
                idle.closed = true
                let connections = idle.connections
                idle.connections = []
                for connection in connections { connection.close() }
            }
        }
    }
}
