import HTTPTypes

/// Reads the head of an HTTP/1.x request straight from the connection's bytes: the gateway's one request reader.
/// It reads every head SwiftNIO's server stack (llhttp, then the version and framing rules) reads, builds what
/// NIOHTTP1 and `HTTP1ToHTTPServerCodec(secure: false)` build from the same bytes, and decides the framing rules of
/// RFC 9112 itself, so that no request is left to another parser.
///
/// The request: scheme `http`, the `Host` value as authority (and not among the fields; an absolute-form target's
/// authority instead, RFC 9112 §3.2.2), the target as path, the other fields in order with their spelling, values
/// without surrounding whitespace — all but `Authorization` and `X-Firebase-AppCheck`, whose values are kept apart
/// (tokens of about 1 KB that the rules read once), and `Expect: 100-continue`, which the connection answers. An
/// HTTP/1.0 request without the `keep-alive` option gets `Connection: close`, as it closes after its answer.
///
/// Refused (`malformed`, with a reason for logs): what llhttp refuses, and what the framing rules refuse — a
/// `Transfer-Encoding` other than exactly `chunked` or in HTTP/1.0, `Transfer-Encoding` with `Content-Length`, a
/// repeated or listed `Content-Length`, a second or invalid `Host`, HTTP/1.1 without `Host`, a fragment in the
/// target (RFC 9112 §3.2, §6.1, §6.3, §11.2) — and a second `Authorization` or `X-Firebase-AppCheck`, which two
/// readers could take differently (the first or the last).
package enum RawRequestHead {
    package enum Outcome {
        /// A whole head.
        case complete(RequestHead)
        /// No end of the head yet, within the limits.
        case incomplete
        /// Not a head the gateway reads: answered with an error, and the connection closes.
        case invalid(RequestHeadError)
    }

    /// - Parameters:
    ///   - maxBytes: the longest head read, in bytes through its empty line.
    ///   - maxFields: the most field lines read.
    package static func parse(_ bytes: UnsafeRawBufferPointer, maxBytes: Int, maxFields: Int) -> Outcome {
        let count = bytes.count
        // Empty lines before the request line are skipped (RFC 9112 §2.2).
        var index = 0
        while index < count, bytes[index] == UInt8(ascii: "\r") {
            guard index + 1 < count else { return .incomplete }
            guard bytes[index + 1] == UInt8(ascii: "\n") else { return Self.malformed("bare_cr") }
            index += 2
            guard index <= maxBytes else { return .invalid(.tooLarge) }
        }
        guard index < count else { return .incomplete }

        // Method: a token, then SP (more spaces are skipped, as llhttp does). Methods are case-sensitive tokens
        // (RFC 9110 §9.1): `get` is an unknown method, answered 405 by the router, not a malformed request.
        let methodStart = index
        while index < count, Self.isMethodByte(bytes[index]) { index += 1 }
        guard index < count else { return index - methodStart > 20 ? Self.malformed("invalid_method") : .incomplete }
        let methodEnd = index
        guard methodEnd > methodStart, methodEnd - methodStart <= 20, bytes[index] == UInt8(ascii: " ") else {
            return Self.malformed("invalid_method")
        }
        while index < count, bytes[index] == UInt8(ascii: " ") { index += 1 }

        // Target: visible ASCII up to the SP before the version.
        let targetStart = index
        while index < count, bytes[index] > 0x20, bytes[index] < 0x7F {
            guard bytes[index] != UInt8(ascii: "#") else { return Self.malformed("fragment_in_target") }
            index += 1
        }
        guard index < count else { return index > maxBytes ? .invalid(.tooLarge) : .incomplete }
        let targetEnd = index
        guard targetEnd > targetStart, bytes[index] == UInt8(ascii: " ") else { return Self.malformed("invalid_target") }
        index += 1

        // Version: HTTP/1.1 or HTTP/1.0, then CRLF.
        var isHTTP10 = false
        let version: StaticString = "HTTP/1.1\r\n"
        for offset in 0..<version.utf8CodeUnitCount {
            guard index < count else { return .incomplete }
            let byte = bytes[index]
            if offset == 7, byte == UInt8(ascii: "0") {
                isHTTP10 = true
            } else if byte != version.utf8Start[offset] {
                return Self.malformed("invalid_version")
            }
            index += 1
        }

        var fields = HTTPFields()
        var authority: String?
        var host = 0..<0
        var hostLines = 0
        var authorization: String?
        var appCheck: String?
        var contentLength: UInt64?
        var chunked = false
        var expectsContinue = false
        var connection = ConnectionOptions()
        var upgrade = false
        var fieldCount = 0
        // Field lines until the empty line.
        while true {
            guard index < count else { return index > maxBytes ? .invalid(.tooLarge) : .incomplete }
            let first = bytes[index]
            if first == UInt8(ascii: "\r") {
                guard index + 1 < count else { return .incomplete }
                guard bytes[index + 1] == UInt8(ascii: "\n") else { return Self.malformed("bare_cr") }
                index += 2
                break
            }
            // Name: one or more token characters, then the colon (no whitespace before it, no obs-fold).
            let nameStart = index
            while index < count, HTTPByte.isToken(bytes[index]) { index += 1 }
            guard index < count else { return index > maxBytes ? .invalid(.tooLarge) : .incomplete }
            let nameEnd = index
            guard nameEnd > nameStart, bytes[index] == UInt8(ascii: ":") else {
                return Self.malformed(first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") ? "obs_fold" : "invalid_field_name")
            }
            index += 1
            while index < count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
            let valueStart = index
            index = VisibleASCII.skip(bytes, from: index, to: count)
            while index < count, Self.isValueByte(bytes[index]) { index += 1 }
            guard index + 1 < count else {
                if index < count, bytes[index] != UInt8(ascii: "\r") { return Self.malformed("invalid_field_value") }
                return index > maxBytes ? .invalid(.tooLarge) : .incomplete
            }
            guard bytes[index] == UInt8(ascii: "\r") else { return Self.malformed("invalid_field_value") }
            guard bytes[index + 1] == UInt8(ascii: "\n") else { return Self.malformed("bare_cr") }
            var valueEnd = index
            while valueEnd > valueStart, bytes[valueEnd - 1] == UInt8(ascii: " ") || bytes[valueEnd - 1] == UInt8(ascii: "\t") {
                valueEnd -= 1
            }
            index += 2
            fieldCount += 1
            guard fieldCount <= maxFields, index <= maxBytes else { return .invalid(.tooLarge) }

            let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<nameEnd])
            let value = UnsafeRawBufferPointer(rebasing: bytes[valueStart..<valueEnd])
            switch Self.special(name) {
            case .host:
                hostLines += 1
                // A second line is refused below, once the head is whole (RFC 9112 §3.2).
                if authority == nil {
                    authority = String(decoding: value, as: UTF8.self)
                    host = valueStart..<valueEnd
                }
                continue
            case .authorization:
                guard authorization == nil else { return Self.malformed("repeated_authorization") }
                authorization = String(decoding: value, as: UTF8.self)
                continue
            case .appCheck:
                guard appCheck == nil else { return Self.malformed("repeated_app_check") }
                appCheck = String(decoding: value, as: UTF8.self)
                continue
            case .contentLength:
                // One field line, digits (leading zeros and trailing spaces as llhttp reads them, RFC 9112 §6.3).
                guard contentLength == nil else { return Self.malformed("content_length") }
                guard let length = Self.contentLength(UnsafeRawBufferPointer(rebasing: bytes[valueStart..<index - 2])) else {
                    return Self.malformed("content_length")
                }
                contentLength = length
            case .transferEncoding:
                // One field line, exactly `chunked`: the only coding decoded here (RFC 9112 §6.1). Spaces may follow
                // it, a tab may not (llhttp reads `chunked\t` as another coding).
                var codingEnd = index - 2
                while codingEnd > valueStart, bytes[codingEnd - 1] == UInt8(ascii: " ") { codingEnd -= 1 }
                let coding = UnsafeRawBufferPointer(rebasing: bytes[valueStart..<codingEnd])
                guard !chunked, Self.equalsLowercased(coding, "chunked") else { return Self.malformed("transfer_encoding") }
                chunked = true
            case .expect:
                // The one expectation there is (RFC 9110 §10.1.1), answered by the connection, not passed on. Any
                // other stays among the fields (a handler may answer 417).
                if Self.equalsLowercased(value, "100-continue") {
                    expectsContinue = true
                    continue
                }
            case .connection:
                connection.read(value)
            case .upgrade:
                upgrade = true
            case .other:
                break
            }
            guard let fieldName = Self.commonName(name) ?? HTTPField.Name(String(decoding: name, as: UTF8.self)) else {
                return Self.malformed("invalid_field_name")
            }
            fields.append(HTTPField(name: fieldName, value: String(decoding: value, as: UTF8.self)))
        }

        guard index <= maxBytes else { return .invalid(.tooLarge) }
        // The framing rules, now that the head is whole.
        if chunked, contentLength != nil { return Self.malformed("length_and_chunked") }
        if chunked, isHTTP10 { return Self.malformed("chunked_in_http10") }
        if hostLines > 1 { return Self.malformed("duplicate_host") }
        if hostLines == 0, !isHTTP10 { return Self.malformed("missing_host") }

        let methodBytes = UnsafeRawBufferPointer(rebasing: bytes[methodStart..<methodEnd])
        let targetBytes = UnsafeRawBufferPointer(rebasing: bytes[targetStart..<targetEnd])
        guard let method = Self.method(methodBytes) else { return Self.malformed("invalid_method") }
        let isConnect = method == .connect
        let path: String
        switch RequestTarget.read(targetBytes, isConnect: isConnect) {
        case .origin:
            path = String(decoding: targetBytes, as: UTF8.self)
        case .asterisk:
            guard method == .options else { return Self.malformed("asterisk_form") }
            path = "*"
        case .absolute(let targetAuthority, let targetPath):
            if let targetAuthority {
                guard HostSyntax.isValid(targetAuthority) else { return Self.malformed("invalid_host") }
                authority = targetAuthority
                host = 0..<0
            }
            path = targetPath
        case .authority(let targetPath):
            path = targetPath
        case .invalid:
            return Self.malformed("invalid_target")
        }
        guard HostSyntax.isValid(UnsafeRawBufferPointer(rebasing: bytes[host])) else { return Self.malformed("invalid_host") }

        if isHTTP10, !connection.keepAlive {
            // Said the way an HTTP/1.1 request says it (RFC 9112 §9.3).
            fields.append(HTTPField(name: .connection, value: "close"))
        }
        let request = HTTPRequest(method: method, scheme: "http", authority: authority, path: path, headerFields: fields)
        let body: RequestBodyFraming =
            if isConnect {
                // The message ends with its head (llhttp reads what follows as another protocol).
                .none
            } else if chunked {
                .chunked
            } else if let contentLength, contentLength > 0 {
                .length(contentLength >= UInt64(Int.max) ? Int.max : Int(contentLength))
            } else {
                .none
            }
        return .complete(
            RequestHead(
                request: request, authorization: authorization, appCheck: appCheck, length: index, body: body,
                // A CONNECT or upgrade request closes the connection after its answer: the gateway switches no
                // protocols, and whatever follows is not HTTP/1.1.
                closesConnection: connection.close || (isHTTP10 && !connection.keepAlive) || isConnect || upgrade,
                expectsContinue: expectsContinue, readsChunked: !isHTTP10
            )
        )
    }

    private static func malformed(_ reason: String) -> Outcome {
        .invalid(.malformed(reason: reason))
    }

    /// The value of a `Content-Length` line as llhttp reads it: one or more ASCII digits (leading zeros too), then
    /// spaces (no tab); nil for anything else, or for a value over 2^64 − 1.
    private static func contentLength(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
        var value: UInt64 = 0
        var index = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
            index += 1
        }
        guard index > 0 else { return nil }
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: " ") else { return nil }
            index += 1
        }
        return value
    }

    /// The `Connection` options that matter to the reader (RFC 9112 §9.3, §9.6).
    private struct ConnectionOptions {
        var close = false
        var keepAlive = false

        mutating func read(_ value: UnsafeRawBufferPointer) {
            let bytes = value.assumingMemoryBound(to: UInt8.self)
            HTTPListValue.forEachElement(bytes, 0, bytes.count) { start, end in
                if end - start == 5, HTTPListValue.equalsLowercased(bytes, start, "close") { self.close = true }
                if end - start == 10, HTTPListValue.equalsLowercased(bytes, start, "keep-alive") { self.keepAlive = true }
            }
        }
    }

    private enum Special {
        case host
        case authorization
        case appCheck
        case contentLength
        case transferEncoding
        case expect
        case connection
        case upgrade
        case other
    }

    /// Fields looked at before they are stored, by lowercased name.
    private static func special(_ name: UnsafeRawBufferPointer) -> Special {
        switch name.count {
        case 4 where Self.equalsLowercased(name, "host"): .host
        case 6 where Self.equalsLowercased(name, "expect"): .expect
        case 7 where Self.equalsLowercased(name, "upgrade"): .upgrade
        case 10 where Self.equalsLowercased(name, "connection"): .connection
        case 13 where Self.equalsLowercased(name, "authorization"): .authorization
        case 14 where Self.equalsLowercased(name, "content-length"): .contentLength
        case 17 where Self.equalsLowercased(name, "transfer-encoding"): .transferEncoding
        case 19 where Self.equalsLowercased(name, "x-firebase-appcheck"): .appCheck
        default: .other
        }
    }

    /// The name of a field most requests carry, spelt as HTTP types spell it: the same name, made without a `String`
    /// to validate and lowercase.
    private static func commonName(_ name: UnsafeRawBufferPointer) -> HTTPField.Name? {
        switch name.count {
        case 6 where Self.equals(name, "Accept"): .accept
        case 6 where Self.equals(name, "Cookie"): .cookie
        case 6 where Self.equals(name, "Origin"): .origin
        case 7 where Self.equals(name, "Referer"): .referer
        case 10 where Self.equals(name, "User-Agent"): .userAgent
        case 10 where Self.equals(name, "Connection"): .connection
        case 12 where Self.equals(name, "Content-Type"): .contentType
        case 13 where Self.equals(name, "Cache-Control"): .cacheControl
        case 14 where Self.equals(name, "Content-Length"): .contentLength
        case 15 where Self.equals(name, "Accept-Encoding"): .acceptEncoding
        case 15 where Self.equals(name, "Accept-Language"): .acceptLanguage
        case 17 where Self.equals(name, "Transfer-Encoding"): .transferEncoding
        default: nil
        }
    }

    private static func equals(_ bytes: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount else { return false }
        for index in 0..<bytes.count where bytes[index] != text.utf8Start[index] { return false }
        return true
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

    /// Method bytes read: token characters (RFC 9110 §9.1), of any case.
    private static func isMethodByte(_ byte: UInt8) -> Bool {
        HTTPByte.isToken(byte)
    }

    /// Field-value bytes: visible ASCII, space, tab and obs-text (RFC 9110 §5.5); no controls, no DEL.
    private static func isValueByte(_ byte: UInt8) -> Bool {
        (byte >= 0x20 && byte != 0x7F) || byte == 0x09
    }

    /// Whether an ASCII byte is in the set given as two 64-bit masks (bytes 0–63, 64–127).
    private static func inSet(_ byte: UInt8, low: UInt64, high: UInt64) -> Bool {
        byte < 64 ? (low >> UInt64(byte)) & 1 == 1 : byte < 128 && (high >> UInt64(byte - 64)) & 1 == 1
    }
}
