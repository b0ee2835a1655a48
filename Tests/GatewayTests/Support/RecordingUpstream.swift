import NIOCore
import NIOPosix
import Synchronization
import TestSupport

/// A raw TCP upstream that records every byte each connection sends it, and answers `200 ok` (then closes) only
/// once a connection has sent a whole chunked request (its bytes end with the last chunk, `0\r\n\r\n`). It shows
/// what an upstream really received: whether a request body the client broke off reached it as a complete one.
final class RecordingUpstream: LocalTestServer {
    let port: Int
    private let channel: any Channel
    private let log: Log

    final class Log: Sendable {
        private let connections = Mutex<[ObjectIdentifier: [UInt8]]>([:])

        func append(_ bytes: ByteBuffer, from connection: ObjectIdentifier) -> [UInt8] {
            self.connections.withLock { connections in
                connections[connection, default: []] += bytes.readableBytesView
                return connections[connection]!
            }
        }

        var requests: [[UInt8]] { self.connections.withLock { Array($0.values) } }
    }

    private init(port: Int, channel: any Channel, log: Log) {
        self.port = port
        self.channel = channel
        self.log = log
    }

    /// What each connection has sent so far.
    var received: [[UInt8]] { self.log.requests }

    /// How many connections sent a whole chunked request (the last chunk included).
    var completeChunkedRequests: Int {
        self.received.filter { Self.endsWithLastChunk($0) }.count
    }

    static func endsWithLastChunk(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 7 && bytes.suffix(7).elementsEqual("\r\n0\r\n\r\n".utf8)
    }

    static func start() async throws -> RecordingUpstream {
        let log = Log()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Recorder(log: log))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        guard let port = channel.localAddress?.port else {
            try? await channel.close()
            throw ChannelError.unknownLocalAddress
        }
        return RecordingUpstream(port: port, channel: channel, log: log)
    }

    func shutdown() async {
        try? await self.channel.close()
    }

    private final class Recorder: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let log: Log

        init(log: Log) {
            self.log = log
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = self.log.append(self.unwrapInboundIn(data), from: ObjectIdentifier(context.channel))
            guard RecordingUpstream.endsWithLastChunk(bytes) else { return }
            let answer = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            let channel = context.channel
            context.writeAndFlush(self.wrapOutboundOut(answer)).whenComplete { _ in channel.close(promise: nil) }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}

/// Runs `body` with a fresh ``RecordingUpstream``, shut down afterwards.
func withRecordingUpstream<Result: Sendable>(_ body: (RecordingUpstream) async throws -> Result) async throws -> Result {
    try await withShutdown(try await RecordingUpstream.start(), body)
}
