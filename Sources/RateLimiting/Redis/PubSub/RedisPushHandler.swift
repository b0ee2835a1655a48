import NIOCore

/// The pipeline end of a subscribed connection: writes the setup commands and `SUBSCRIBE` when it becomes active,
/// ignores their replies, and hands each `message` push on the channel to `onMessage`. An error reply (a refused
/// `AUTH`) closes the connection.
final class RedisPushHandler: ChannelInboundHandler {
    typealias InboundIn = RESPValue
    typealias OutboundOut = RedisCommand

    private let commands: [RedisCommand]
    private let onSubscribed: @Sendable () -> Void
    private let onMessage: @Sendable (String) -> Void

    init(commands: [RedisCommand], onSubscribed: @escaping @Sendable () -> Void, onMessage: @escaping @Sendable (String) -> Void) {
        self.commands = commands
        self.onSubscribed = onSubscribed
        self.onMessage = onMessage
    }

    func channelActive(context: ChannelHandlerContext) {
        for command in self.commands { context.write(Self.wrapOutboundOut(command), promise: nil) }
        context.flush()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .error:
            context.close(promise: nil)
        case .array(let items?) where items.count == 3:
            switch items[0].string {
            case "message": if let payload = items[2].string { self.onMessage(payload) }
            case "subscribe": self.onSubscribed()
            default: break
            }
        default:
            break  // +OK of AUTH and SELECT
        }
    }
}
