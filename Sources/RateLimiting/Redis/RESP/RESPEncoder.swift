import NIOCore

/// Encodes commands as RESP arrays of bulk strings.
struct RESPEncoder: MessageToByteEncoder {
    typealias OutboundIn = RedisCommand

    func encode(data: RedisCommand, out: inout ByteBuffer) throws {
        data.encode(into: &out)
    }
}
