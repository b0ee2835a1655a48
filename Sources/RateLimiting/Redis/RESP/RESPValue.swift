public import NIOCore

/// A RESP2 reply from Redis.
public enum RESPValue: Sendable, Equatable {
    case simpleString(String)
    /// An error reply (`-ERR …`, `-NOSCRIPT …`), as Redis wrote it.
    case error(String)
    case integer(Int64)
    /// A bulk string; nil is RESP's null bulk string (`$-1`).
    case bulkString(ByteBuffer?)
    /// An array; nil is RESP's null array (`*-1`).
    case array([RESPValue]?)

    /// The text of a simple or bulk string.
    public var string: String? {
        switch self {
        case .simpleString(let text): return text
        case .bulkString(let buffer?): return String(buffer: buffer)
        default: return nil
        }
    }

    /// An integer reply.
    public var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The bytes of a bulk or simple string, exactly as stored (binary-safe).
    public var bytes: [UInt8]? {
        switch self {
        case .bulkString(let buffer?): return Array(buffer.readableBytesView)
        case .simpleString(let text): return Array(text.utf8)
        default: return nil
        }
    }

    /// The elements of an array reply (nil for the null array and for anything else).
    public var array: [RESPValue]? {
        if case .array(let elements?) = self { return elements }
        return nil
    }

    /// True for the null bulk string and the null array (a missing key, a script's `false`).
    public var isNull: Bool {
        switch self {
        case .bulkString(nil), .array(nil): return true
        default: return false
        }
    }

    /// The message of an error reply.
    public var errorMessage: String? {
        if case .error(let message) = self { return message }
        return nil
    }
}
