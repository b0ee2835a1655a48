import NIOCore

/// A RESP2 reply from Redis.
enum RESPValue: Sendable, Equatable {
    case simpleString(String)
    case error(String)
    case integer(Int64)
    /// A bulk string; nil is RESP's null bulk string (`$-1`).
    case bulkString(ByteBuffer?)
    /// An array; nil is RESP's null array (`*-1`).
    case array([RESPValue]?)

    /// The text of a simple or bulk string.
    var string: String? {
        switch self {
        case .simpleString(let text): return text
        case .bulkString(let buffer?): return String(buffer: buffer)
        default: return nil
        }
    }

    /// An integer reply.
    var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }
}
