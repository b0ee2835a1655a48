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
        // `$<digits>\r\n<whole>\r\n` formatted on the stack and written at once.
        withUnsafeTemporaryAllocation(byteCount: 32, alignment: 1) { scratch in
            let number = UnsafeMutableRawBufferPointer(rebasing: scratch[8...])
            let length = Self.formatDecimal(whole, into: number)
            scratch[0] = UInt8(ascii: "$")
            var index = 1 + Self.formatDecimal(length, into: UnsafeMutableRawBufferPointer(rebasing: scratch[1..<6]))
            scratch[index] = UInt8(ascii: "\r")
            scratch[index + 1] = UInt8(ascii: "\n")
            index += 2
            self.writeBytes(UnsafeRawBufferPointer(rebasing: scratch[0..<index]))
            number[length] = UInt8(ascii: "\r")
            number[length + 1] = UInt8(ascii: "\n")
            self.writeBytes(UnsafeRawBufferPointer(rebasing: number[0..<(length + 2)]))
        }
    }

    /// A bulk string's length or an array's count in decimal, with no String in between.
    mutating func writeRESPDecimal(_ value: Int) {
        withUnsafeTemporaryAllocation(byteCount: 20, alignment: 1) { scratch in
            let count = Self.formatDecimal(value, into: scratch)
            self.writeBytes(UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        }
    }

    /// Writes `value` (not negative) in decimal at the start of `bytes`, which holds its digits; returns how many.
    private static func formatDecimal(_ value: Int, into bytes: UnsafeMutableRawBufferPointer) -> Int {
        precondition(value >= 0, "RESP lengths are not negative")
        var count = 1
        var rest = value
        while rest >= 10 {
            count += 1
            rest /= 10
        }
        precondition(count <= bytes.count, "room for the digits")
        rest = value
        for index in stride(from: count - 1, through: 0, by: -1) {
            bytes[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
        return count
    }

    mutating func writeRESPLineEnd() {
        self.writeInteger(UInt16(0x0D0A))
    }
}
