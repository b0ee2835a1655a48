import HTTPTypes

/// Reads the head of an HTTP/1.1 request straight from the connection's bytes, for the raw path
/// (``RawPathHandler``): the plain, body-less requests that make up the load — and nothing else. It accepts a
/// strict subset of RFC 9112 and says `unsupported` for anything outside it (another version, a body, an
/// absolute or unusual request target, obs-fold, bare CR or LF, a byte outside printable ASCII, a second
/// `Host`, `Transfer-Encoding`, `Upgrade`, too many or too large fields), and those requests go to SwiftNIO's
/// parser, which has always answered them. So this reader never has to decide a hard case.
///
/// What it builds is what NIOHTTP1's decoder and `HTTP1ToHTTPServerCodec(secure: false)` build from the same
/// bytes: scheme `http`, the `Host` value as authority (and not among the fields), the request target as path,
/// the other fields in order with their spelling, values without surrounding whitespace — all but `Authorization`
/// and `X-Firebase-AppCheck`, whose values (at most one each; a second leaves the request to SwiftNIO) are kept
/// apart: tokens of about 1 KB that the rules read once, and that an `HTTPField` would check byte by byte again after
/// this reader has.
package enum RawRequestHead {
    package enum Outcome {
        /// A whole head.
        case complete(RequestHead)
        /// No empty line yet, within the limits.
        case incomplete
        /// Not for this reader: the request goes to the general parser.
        case unsupported
    }

    /// - Parameters:
    ///   - maxBytes: the longest head taken here (a longer one is `unsupported`, and the general parser applies
    ///     the server's limits to it).
    ///   - maxFields: the most fields taken here.
    package static func parse(_ bytes: UnsafeRawBufferPointer, maxBytes: Int, maxFields: Int) -> Outcome {
        let count = bytes.count
        guard count > 0 else { return .incomplete }
        // Request line: method SP origin-form SP "HTTP/1.1" CRLF.
        var index = 0
        while index < count, bytes[index] >= UInt8(ascii: "A"), bytes[index] <= UInt8(ascii: "Z") { index += 1 }
        guard index < count else { return index > 20 || index > maxBytes ? .unsupported : .incomplete }
        let methodEnd = index
        guard methodEnd > 0, methodEnd <= 20, bytes[index] == UInt8(ascii: " ") else { return .unsupported }
        index += 1
        let targetStart = index
        while index < count, Self.isTargetByte(bytes[index]) { index += 1 }
        guard index < count else { return count > maxBytes ? .unsupported : .incomplete }
        let targetEnd = index
        guard targetEnd > targetStart, bytes[targetStart] == UInt8(ascii: "/"), bytes[index] == UInt8(ascii: " ") else {
            return .unsupported
        }
        index += 1
        let version: StaticString = "HTTP/1.1\r\n"
        for offset in 0..<version.utf8CodeUnitCount {
            guard index < count else { return .incomplete }
            guard bytes[index] == version.utf8Start[offset] else { return .unsupported }
            index += 1
        }

        var fields = HTTPFields()
        var authority: String?
        var authorization: String?
        var appCheck: String?
        var bodyLength: Int?
        var chunked = false
        var expectsContinue = false
        var fieldCount = 0
        // Field lines until the empty line.
        while true {
            guard index < count else { return count > maxBytes ? .unsupported : .incomplete }
            if bytes[index] == UInt8(ascii: "\r") {
                guard index + 1 < count else { return .incomplete }
                guard bytes[index + 1] == UInt8(ascii: "\n") else { return .unsupported }
                index += 2
                break
            }
            // Name: one or more token characters, then the colon (no whitespace before it, no obs-fold).
            let nameStart = index
            while index < count, Self.isTokenByte(bytes[index]) { index += 1 }
            guard index < count else { return count > maxBytes ? .unsupported : .incomplete }
            let nameEnd = index
            guard nameEnd > nameStart, bytes[index] == UInt8(ascii: ":") else { return .unsupported }
            index += 1
            while index < count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
            let valueStart = index
            index = VisibleASCII.skip(bytes, from: index, to: count)
            while index < count, Self.isValueByte(bytes[index]) { index += 1 }
            guard index + 1 < count else { return count > maxBytes ? .unsupported : .incomplete }
            guard bytes[index] == UInt8(ascii: "\r"), bytes[index + 1] == UInt8(ascii: "\n") else { return .unsupported }
            var valueEnd = index
            while valueEnd > valueStart, bytes[valueEnd - 1] == UInt8(ascii: " ") || bytes[valueEnd - 1] == UInt8(ascii: "\t") {
                valueEnd -= 1
            }
            index += 2
            fieldCount += 1
            guard fieldCount <= maxFields, index <= maxBytes else { return .unsupported }

            let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<nameEnd])
            let value = UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd])
            switch Self.special(name) {
            case .host:
                guard authority == nil else { return .unsupported }
                authority = String(decoding: value, as: UTF8.self)
                continue
            case .authorization:
                guard authorization == nil else { return .unsupported }
                authorization = String(decoding: value, as: UTF8.self)
                continue
            case .appCheck:
                guard appCheck == nil else { return .unsupported }
                appCheck = String(decoding: value, as: UTF8.self)
                continue
            case .refused:
                return .unsupported
            case .contentLength:
                // One field line, digits only (RFC 9112 §6.3).
                guard bodyLength == nil, !chunked, let length = Self.decimal(value) else { return .unsupported }
                bodyLength = length
            case .transferEncoding:
                // One field line, exactly `chunked`: the only coding decoded here (see ``RequestFraming``).
                guard !chunked, bodyLength == nil, Self.equalsLowercased(value, "chunked") else { return .unsupported }
                chunked = true
            case .expect:
                // The one expectation there is (RFC 9110 §10.1.1), answered by the connection, not passed on.
                guard !expectsContinue, Self.equalsLowercased(value, "100-continue") else { return .unsupported }
                expectsContinue = true
                continue
            case .other:
                break
            }
            guard let fieldName = HTTPField.Name(String(decoding: name, as: UTF8.self)) else { return .unsupported }
            fields.append(HTTPField(name: fieldName, value: String(decoding: value, as: UTF8.self)))
        }
        guard index <= maxBytes, let authority else { return .unsupported }

        let method = Self.method(UnsafeRawBufferPointer(rebasing: bytes[0..<methodEnd]))
        guard let method else { return .unsupported }
        let path = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[targetStart..<targetEnd]), as: UTF8.self)
        let request = HTTPRequest(method: method, scheme: "http", authority: authority, path: path, headerFields: fields)
        return .complete(
            RequestHead(
                request: request, authorization: authorization, appCheck: appCheck, length: index,
                body: chunked ? .chunked : bodyLength.map { $0 == 0 ? .none : .length($0) } ?? .none,
                closesConnection: Self.listsClose(fields[.connection]), expectsContinue: expectsContinue
            )
        )
    }

    /// The value of one or more ASCII digits; `Int.max` for one that large or larger (over any body limit); nil for
    /// anything else.
    private static func decimal(_ bytes: UnsafeRawBufferPointer) -> Int? {
        // Leading zeros (`00`) are valid but unusual: left to the general parser.
        guard !bytes.isEmpty, bytes[0] != UInt8(ascii: "0") || bytes.count == 1 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            value = overflow1 || overflow2 ? Int.max : sum
        }
        return value
    }

    private enum Special {
        case host
        case authorization
        case appCheck
        case contentLength
        case transferEncoding
        case expect
        /// A field that changes how the request is framed or what the connection becomes: not taken here.
        case refused
        case other
    }

    /// Fields looked at before they are stored, by lowercased name.
    private static func special(_ name: UnsafeRawBufferPointer) -> Special {
        switch name.count {
        case 4 where Self.equalsLowercased(name, "host"): .host
        case 6 where Self.equalsLowercased(name, "expect"): .expect
        case 7 where Self.equalsLowercased(name, "upgrade"): .refused
        case 13 where Self.equalsLowercased(name, "authorization"): .authorization
        case 14 where Self.equalsLowercased(name, "content-length"): .contentLength
        case 17 where Self.equalsLowercased(name, "transfer-encoding"): .transferEncoding
        case 19 where Self.equalsLowercased(name, "x-firebase-appcheck"): .appCheck
        default: .other
        }
    }

    private static func equalsLowercased(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        let expected = UnsafeRawBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        guard bytes.count == expected.count else { return false }
        for index in 0..<bytes.count where bytes[index] | 0x20 != expected[index] {
            // `| 0x20` lowercases letters; the other bytes of these names ("-") are equal to themselves with it.
            return false
        }
        return true
    }

    private static func method(_ bytes: UnsafeRawBufferPointer) -> HTTPRequest.Method? {
        switch bytes.count {
        case 3 where bytes[0] == UInt8(ascii: "G") && bytes[1] == UInt8(ascii: "E") && bytes[2] == UInt8(ascii: "T"): .get
        case 4 where bytes[0] == UInt8(ascii: "H") && bytes[1] == UInt8(ascii: "E") && bytes[2] == UInt8(ascii: "A"):
            bytes[3] == UInt8(ascii: "D") ? .head : HTTPRequest.Method(String(decoding: bytes, as: UTF8.self))
        default: HTTPRequest.Method(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// RFC 9110 tchar.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        Self.inSet(byte, low: 0x03ff_6cfa_0000_0000, high: 0x57ff_ffff_c7ff_fffe)
    }

    /// Field-value bytes taken here: visible ASCII, space and tab (no obs-text, no controls).
    private static func isValueByte(_ byte: UInt8) -> Bool {
        (byte >= 0x20 && byte < 0x7F) || byte == 0x09
    }

    /// Request-target bytes taken here: RFC 3986's unreserved, sub-delims, pct-encoded, ":", "@", "/" and "?".
    /// Anything else (space, controls, `"`, `#`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|`, `}`, non-ASCII) ends the
    /// target, and unless it is the space before the version, the request is not taken.
    private static func isTargetByte(_ byte: UInt8) -> Bool {
        Self.inSet(byte, low: 0xafff_fff2_0000_0000, high: 0x47ff_fffe_87ff_ffff)
    }

    /// Whether an ASCII byte is in the set given as two 64-bit masks (bytes 0–63, 64–127).
    private static func inSet(_ byte: UInt8, low: UInt64, high: UInt64) -> Bool {
        byte < 64 ? (low >> UInt64(byte)) & 1 == 1 : byte < 128 && (high >> UInt64(byte - 64)) & 1 == 1
    }
}

extension RawRequestHead {
    /// Whether a `Connection` value lists `close` (RFC 9112 §9.6).
    static func listsClose(_ value: String?) -> Bool {
        guard var value else { return false }
        return value.withUTF8 { bytes in
            var found = false
            HTTPListValue.forEachElement(bytes, 0, bytes.count) { start, end in
                if end - start == 5, HTTPListValue.equalsLowercased(bytes, start, "close") { found = true }
            }
            return found
        }
    }
}
