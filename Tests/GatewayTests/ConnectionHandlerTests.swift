import HTTPTypes
import IDTokens
import Logging
import NIOCore
import NIOEmbedded
import RateLimiting
import Testing

@testable import Gateway
@testable import GatewayConfig

/// ``ConnectionHandler`` on an `EmbeddedChannel` with the loop's virtual clock: header and idle timeouts, answers in
/// request order, `Connection: close`, half-close and quiesce. No sockets and no sleeps: the requests are ones the
/// connection answers on the spot (a method the route does not take), so nothing runs outside the loop.
@Suite("Connection handler on a virtual clock")
struct ConnectionHandlerTests {
    static let limits = ConnectionStateMachine.Limits(
        maxHeadBytes: 8192, maxFields: 50, headerTimeout: .seconds(10), idleTimeout: .seconds(75),
        bodyTimeout: .seconds(30)
    )

    /// A responder with one built-in route, `/healthz` (GET and HEAD): a `POST` to it is answered 405 at once.
    static func responder() -> GatewayResponder {
        let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        let metrics = GatewayMetrics()
        let route = Route(name: "healthz", path: .exact("/healthz"), methods: [.get, .head], auth: .none, handler: SystemHandlers.health())
        return GatewayResponder(
            routes: RouteTable([route]),
            authenticator: Authenticator(tokens: IDTokenAuthenticator(projects: [], cache: TokenCache(capacity: 16)), trustUserIDHeader: false),
            rateLimiter: RateLimiter(limits: [], store: InMemoryRateLimitStore(), metrics: metrics, logger: logger),
            trustedProxies: [], metrics: metrics, accessLog: nil, logger: logger, now: { Self.clock }
        )
    }

    /// The wall clock the responder reads: 2026-11-28 10:00:00 UTC.
    static let clock = 1_795_860_000.0

    /// A connected channel with its handler.
    static func connection() throws -> (EmbeddedChannel, EmbeddedEventLoop) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(handler: ConnectionHandler(responder: LiveResponder(Self.responder()), limits: Self.limits), loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 4000)).wait()
        return (channel, loop)
    }

    static func send(_ text: String, to channel: EmbeddedChannel) throws {
        try channel.writeInbound(ByteBuffer(string: text))
    }

    /// The status lines written so far, in order.
    static func statusLines(_ channel: EmbeddedChannel) throws -> [String] {
        var text = ""
        while let data = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let buffer) = data else { continue }
            text += String(buffer: buffer)
        }
        // A body is not followed by CRLF: a status line may start right after one.
        return text.matches(of: /HTTP\/1\.1 [0-9]{3} [^\r]*/).map { String($0.output) }
    }

    static let notAllowed = "POST /healthz HTTP/1.1\r\nHost: t\r\n\r\n"

    @Test("a head must be complete within the header timeout of its first byte")
    func headerTimeout() throws {
        let (channel, loop) = try Self.connection()
        try Self.send("GET /healthz HTTP/1.1\r\nHost:", to: channel)
        loop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
        #expect(try Self.statusLines(channel).isEmpty)
    }

    @Test("a connection that never sends a byte is closed at the header timeout")
    func silentConnection() throws {
        let (channel, loop) = try Self.connection()
        loop.advanceTime(by: .seconds(11))
        #expect(!channel.isActive)
    }

    @Test("after an answer, a connection idles until the idle timeout, then closes")
    func idleTimeout() throws {
        let (channel, loop) = try Self.connection()
        try Self.send(Self.notAllowed, to: channel)
        #expect(try Self.statusLines(channel) == ["HTTP/1.1 405 Method Not Allowed"])
        loop.advanceTime(by: .seconds(74))
        #expect(channel.isActive, "the header timeout no longer applies once the head is answered")
        loop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive)
    }

    @Test("pipelined requests in one read are answered in order, and the next head's clock starts at once")
    func pipelined() throws {
        let (channel, loop) = try Self.connection()
        try Self.send(Self.notAllowed + "DELETE /healthz HTTP/1.1\r\nHost: t\r\n\r\n" + "PUT /healthz HTTP/1.1\r\nHo", to: channel)
        let lines = try Self.statusLines(channel)
        #expect(lines == ["HTTP/1.1 405 Method Not Allowed", "HTTP/1.1 405 Method Not Allowed"], "\(lines)")
        // The third head has begun: its header timeout runs, not the idle one.
        loop.advanceTime(by: .seconds(11))
        #expect(!channel.isActive)
    }

    @Test("Connection: close is answered, then the connection closes and later bytes are not read")
    func connectionClose() throws {
        let (channel, loop) = try Self.connection()
        try Self.send("POST /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" + Self.notAllowed, to: channel)
        loop.run()
        #expect(try Self.statusLines(channel) == ["HTTP/1.1 405 Method Not Allowed"])
        #expect(!channel.isActive)
    }

    @Test("an answer's Date is the responder's clock")
    func injectedClock() throws {
        let (channel, _) = try Self.connection()
        try Self.send(Self.notAllowed, to: channel)
        var text = ""
        while let data = try channel.readOutbound(as: IOData.self) {
            if case .byteBuffer(let buffer) = data { text += String(buffer: buffer) }
        }
        #expect(text.contains("\r\nDate: Sat, 28 Nov 2026 10:00:00 GMT\r\n"), "\(text)")
        #expect(text.contains("\"timestamp\":\"2026-11-28T10:00:00.000Z\""), "\(text)")
    }

    @Test("a client that half-closes after its requests gets their answers, then the connection closes")
    func halfClose() throws {
        let (channel, _) = try Self.connection()
        try Self.send(Self.notAllowed + Self.notAllowed, to: channel)
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(try Self.statusLines(channel).count == 2)
        #expect(!channel.isActive)
    }

    @Test("a graceful shutdown closes an idle connection at once")
    func quiesceIdle() throws {
        let (channel, _) = try Self.connection()
        try Self.send(Self.notAllowed, to: channel)
        #expect(try Self.statusLines(channel).count == 1)
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        #expect(!channel.isActive)
    }

    @Test("an unreadable head is answered 400 with Connection: close, and the connection closes")
    func unreadableHead() throws {
        let (channel, loop) = try Self.connection()
        try Self.send("GET / HTTP/1.1\r\nHost: t\r\nBad Header\r\n\r\n" + Self.notAllowed, to: channel)
        loop.run()
        #expect(try Self.statusLines(channel) == ["HTTP/1.1 400 Bad Request"])
        #expect(!channel.isActive)
    }

    @Test("a body nobody reads: the answer says Connection: close, and the connection closes after it")
    func unreadBody() throws {
        let (channel, loop) = try Self.connection()
        try Self.send("POST /healthz HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", to: channel)
        loop.run()
        var text = ""
        while let data = try channel.readOutbound(as: IOData.self) {
            if case .byteBuffer(let buffer) = data { text += String(buffer: buffer) }
        }
        #expect(text.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n"))
        #expect(text.lowercased().contains("\r\nconnection: close\r\n"))
        #expect(!channel.isActive)
    }
}
