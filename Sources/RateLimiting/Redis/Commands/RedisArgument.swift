public import NIOCore

/// One argument of a Redis command, sent as a RESP bulk string: text, a number, or any bytes (a stored body), so
/// arguments are binary-safe.
public struct RedisArgument: Sendable, Hashable, ExpressibleByStringLiteral {
    private enum Storage: Sendable, Hashable {
        case text(String)
        case bytes([UInt8])
    }

    private let storage: Storage

    /// Text, sent as its UTF-8 bytes.
    public init(_ text: String) {
        self.storage = .text(text)
    }

    /// A literal, such as a command's name: `["GET", key]`.
    public init(stringLiteral text: String) {
        self.storage = .text(text)
    }

    /// An integer in decimal, as Redis reads counts, milliseconds and scores.
    public init(_ value: Int) {
        self.storage = .text(String(value))
    }

    /// Bytes sent as they are.
    public init(bytes: [UInt8]) {
        self.storage = .bytes(bytes)
    }

    /// The readable bytes of `buffer`, sent as they are.
    public init(bytes buffer: ByteBuffer) {
        self.storage = .bytes(Array(buffer.readableBytesView))
    }

    /// The argument as text (bytes that are not UTF-8 are repaired), for checks on command names.
    var text: String {
        switch self.storage {
        case .text(let text): text
        case .bytes(let bytes): String(decoding: bytes, as: UTF8.self)
        }
    }

    /// `$<length>\r\n<bytes>\r\n`.
    func encode(into buffer: inout ByteBuffer) {
        switch self.storage {
        case .text(let text):
            buffer.writeRESPBulkString(text)
        case .bytes(let bytes):
            buffer.writeInteger(UInt8(ascii: "$"))
            buffer.writeRESPDecimal(bytes.count)
            buffer.writeRESPLineEnd()
            buffer.writeBytes(bytes)
            buffer.writeRESPLineEnd()
        }
    }
}

/// A command of `RedisArgument`s, as `RedisCommands` sends it.
struct RedisRequest: RESPEncodable, Sendable {
    var arguments: [RedisArgument]

    func encode(into buffer: inout ByteBuffer) {
        buffer.writeRESPArrayHeader(count: self.arguments.count)
        for argument in self.arguments {
            argument.encode(into: &buffer)
        }
    }
}
