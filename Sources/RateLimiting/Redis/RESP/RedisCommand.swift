import NIOCore

/// A command as RESP sends it: an array of bulk strings.
struct RedisCommand: Sendable, Equatable {
    var arguments: [String]

    init(_ arguments: [String]) {
        self.arguments = arguments
    }

    init(_ arguments: String...) {
        self.arguments = arguments
    }

    /// The command's name, for logs (never its arguments, which may hold a password).
    var name: String { self.arguments.first ?? "" }

    func encode(into buffer: inout ByteBuffer) {
        buffer.writeStaticString("*")
        buffer.writeString(String(self.arguments.count))
        buffer.writeStaticString("\r\n")
        for argument in self.arguments {
            buffer.writeStaticString("$")
            buffer.writeString(String(argument.utf8.count))
            buffer.writeStaticString("\r\n")
            buffer.writeString(argument)
            buffer.writeStaticString("\r\n")
        }
    }
}
