import NIOCore

/// Decodes RESP2 replies; a reply split across reads waits for more bytes.
struct RESPDecoder: ByteToMessageDecoder {
    typealias InboundOut = RESPValue

    /// Bounds that keep a confused or hostile peer from exhausting memory.
    static let maximumBulkLength = 16 * 1024 * 1024
    static let maximumArrayCount = 1024 * 1024
    static let maximumDepth = 8
    static let maximumLineLength = 64 * 1024

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let value = try Self.parse(&buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(value))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try self.decode(context: context, buffer: &buffer)
    }

    /// Parses one complete reply and moves the reader index past it, or returns nil (and leaves the buffer
    /// as it was) when the reply is not complete yet.
    static func parse(_ buffer: inout ByteBuffer) throws(RateLimitStoreError) -> RESPValue? {
        if let (value, length) = Self.flatArray(buffer) {
            buffer.moveReaderIndex(forwardBy: length)
            return value
        }
        return try self.parseAnyValue(&buffer)
    }

    /// `parse` without the flat-array fast path (for tests that compare the two).
    static func parseAnyValue(_ buffer: inout ByteBuffer) throws(RateLimitStoreError) -> RESPValue? {
        var view = buffer
        guard let value = try self.parseValue(&view, depth: 0) else { return nil }
        buffer.moveReaderIndex(to: view.readerIndex)
        return value
    }

    /// A complete, well-formed array of at most 16 integers and short bulk strings at the start of `buffer` (the
    /// token bucket script's reply), read in one pass over the bytes, and its length; nil for anything else,
    /// complete or not, which the general parser then reads, waits for or refuses.
    private static func flatArray(_ buffer: ByteBuffer) -> (RESPValue, Int)? {
        buffer.withUnsafeReadableBytes { bytes -> (RESPValue, Int)? in
            guard bytes.first == UInt8(ascii: "*") else { return nil }
            var index = 1
            guard let count = Self.digitsLine(bytes, &index, signed: false), count > 0, count <= 16 else { return nil }
            var elements: [RESPValue] = []
            elements.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard index < bytes.count else { return nil }
                let type = bytes[index]
                index += 1
                if type == UInt8(ascii: ":") {
                    guard let value = Self.digitsLine(bytes, &index, signed: true) else { return nil }
                    elements.append(.integer(value))
                } else if type == UInt8(ascii: "$") {
                    guard let length = Self.digitsLine(bytes, &index, signed: false), length <= 64 else { return nil }
                    let end = index + Int(length)
                    guard end + 2 <= bytes.count, bytes[end] == UInt8(ascii: "\r"), bytes[end + 1] == UInt8(ascii: "\n") else { return nil }
                    guard let text = buffer.getSlice(at: buffer.readerIndex + index, length: Int(length)) else { return nil }
                    elements.append(.bulkString(text))
                    index = end + 2
                } else {
                    return nil
                }
            }
            return (.array(elements), index)
        }
    }

    /// Decimal digits (after an optional sign when `signed`) up to CRLF, at most 18 of them, from `index`, which
    /// moves past the CRLF; nil when the line is anything else or not all there.
    private static func digitsLine(_ bytes: UnsafeRawBufferPointer, _ index: inout Int, signed: Bool) -> Int64? {
        var position = index
        var negative = false
        if signed, position < bytes.count, bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+") {
            negative = bytes[position] == UInt8(ascii: "-")
            position += 1
        }
        let first = position
        var value: Int64 = 0
        while position < bytes.count, position - first < 18 {
            let digit = bytes[position] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            value = value * 10 + Int64(digit)
            position += 1
        }
        guard position > first, position + 2 <= bytes.count, bytes[position] == UInt8(ascii: "\r"),
            bytes[position + 1] == UInt8(ascii: "\n")
        else { return nil }
        index = position + 2
        return negative ? -value : value
    }

    private static func parseValue(_ buffer: inout ByteBuffer, depth: Int) throws(RateLimitStoreError) -> RESPValue? {
        guard depth <= Self.maximumDepth else { throw .protocolError.with(detail: "RESP nesting too deep") }
        guard let type = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return nil }
        var body = buffer
        body.moveReaderIndex(forwardBy: 1)
        guard let line = try self.readLine(&body) else { return nil }
        let value: RESPValue
        switch type {
        case UInt8(ascii: "+"):
            value = .simpleString(String(buffer: line))
        case UInt8(ascii: "-"):
            value = .error(String(buffer: line))
        case UInt8(ascii: ":"):
            value = .integer(try self.integer(line))
        case UInt8(ascii: "$"):
            let length = try self.integer(line)
            if length < 0 {
                value = .bulkString(nil)
                break
            }
            guard length <= Self.maximumBulkLength else { throw .protocolError.with(detail: "bulk string too long") }
            guard body.readableBytes >= Int(length) + 2 else { return nil }
            let bytes = body.readSlice(length: Int(length))!
            guard body.readInteger(as: UInt16.self) == 0x0D0A else { throw .protocolError.with(detail: "bulk string not terminated") }
            value = .bulkString(bytes)
        case UInt8(ascii: "*"):
            let count = try self.integer(line)
            if count < 0 {
                value = .array(nil)
                break
            }
            guard count <= Self.maximumArrayCount else { throw .protocolError.with(detail: "array too long") }
            var elements: [RESPValue] = []
            elements.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let element = try self.parseValue(&body, depth: depth + 1) else { return nil }
                elements.append(element)
            }
            value = .array(elements)
        default:
            throw .protocolError.with(detail: "unknown RESP type byte \(type)")
        }
        buffer = body
        return value
    }

    /// Reads up to CRLF, returning the line without it, or nil when no CRLF has arrived yet.
    private static func readLine(_ buffer: inout ByteBuffer) throws(RateLimitStoreError) -> ByteBuffer? {
        let view = buffer.readableBytesView
        guard let newline = view.firstIndex(of: UInt8(ascii: "\n")) else {
            if view.count > Self.maximumLineLength { throw .protocolError.with(detail: "line too long") }
            return nil
        }
        let length = newline - view.startIndex
        guard length >= 1, view[newline - 1] == UInt8(ascii: "\r") else {
            throw .protocolError.with(detail: "line not terminated by CRLF")
        }
        let line = buffer.readSlice(length: length - 1)!
        buffer.moveReaderIndex(forwardBy: 2)
        return line
    }

    /// An optional sign and decimal digits, read from the bytes (as `Int64(_: String)` reads them, with no String).
    private static func integer(_ line: ByteBuffer) throws(RateLimitStoreError) -> Int64 {
        let value = line.withUnsafeReadableBytes { bytes -> Int64? in
            var index = 0
            var negative = false
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                negative = sign == UInt8(ascii: "-")
                index = 1
            }
            guard index < bytes.count else { return nil }
            var value: Int64 = 0
            while index < bytes.count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                // Accumulated negatively, so Int64.min fits.
                let (shifted, overflowShift) = value.multipliedReportingOverflow(by: 10)
                let (next, overflowAdd) = shifted.subtractingReportingOverflow(Int64(digit))
                guard !overflowShift, !overflowAdd else { return nil }
                value = next
                index += 1
            }
            if negative { return value }
            return value == .min ? nil : -value
        }
        guard let value else { throw .protocolError.with(detail: "malformed integer") }
        return value
    }
}
