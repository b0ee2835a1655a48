import NIOCore

/// Something that writes itself as one RESP command (an array of bulk strings).
protocol RESPEncodable {
    func encode(into buffer: inout ByteBuffer)
}

/// A command as RESP sends it: an array of bulk strings.
struct RedisCommand: RESPEncodable, Sendable, Equatable {
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
        buffer.writeRESPArrayHeader(count: self.arguments.count)
        for argument in self.arguments {
            buffer.writeRESPBulkString(argument)
        }
    }
}

extension ByteBuffer {
    /// `*<count>\r\n`.
    mutating func writeRESPArrayHeader(count: Int) {
        self.writeInteger(UInt8(ascii: "*"))
        self.writeRESPDecimal(count)
        self.writeRESPLineEnd()
    }

    /// `$<length>\r\n<text>\r\n`.
    mutating func writeRESPBulkString(_ text: String) {
        self.writeInteger(UInt8(ascii: "$"))
        self.writeRESPDecimal(text.utf8.count)
        self.writeRESPLineEnd()
        self.writeString(text)
        self.writeRESPLineEnd()
    }

    /// A number as a bulk string, in `TokenBucketScript.argument`'s text, with no String for a whole number.
    mutating func writeRESPBulkNumber(_ value: Double) {
        guard let whole = TokenBucketScript.wholeNumber(value) else {
            self.writeRESPBulkString("\(value)")
            return
        }
        var digits = 1
        var rest = whole
        while rest >= 10 {
            digits += 1
            rest /= 10
        }
        self.writeInteger(UInt8(ascii: "$"))
        self.writeRESPDecimal(digits)
        self.writeRESPLineEnd()
        self.writeRESPDecimal(whole)
        self.writeRESPLineEnd()
    }

    /// A bulk string's length or an array's count in decimal, with no String in between.
    mutating func writeRESPDecimal(_ value: Int) {
        precondition(value >= 0, "RESP lengths are not negative")
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            self.writeInteger(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    mutating func writeRESPLineEnd() {
        self.writeInteger(UInt16(0x0D0A))
    }
}
