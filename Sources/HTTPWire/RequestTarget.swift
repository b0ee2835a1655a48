#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The form of a request target (RFC 9112 §3.2), and the authority and path the gateway reads from it: those
/// NIOHTTPTypes and the server's version rules make of the same target (the authority of an `http` or `https`
/// absolute-form target replaces `Host`; its path and query, `/` when empty, are the path).
enum RequestTarget {
    /// `/path?query`.
    case origin
    /// `*`.
    case asterisk
    /// `scheme://authority/path?query`: the authority (nil when the scheme is not `http` or `https`) and the path.
    case absolute(authority: String?, path: String)
    /// `host:port`, for CONNECT, with the path NIOHTTPTypes reads from it (`host` reads as a URI scheme, `port` as
    /// its path).
    case authority(path: String)
    /// No form llhttp reads.
    case invalid

    /// `bytes` is one or more visible ASCII bytes, none of them `#`.
    static func read(_ bytes: UnsafeRawBufferPointer, isConnect: Bool) -> RequestTarget {
        if bytes[0] == UInt8(ascii: "/") { return .origin }
        if bytes.count == 1, bytes[0] == UInt8(ascii: "*") { return .asterisk }
        // scheme "://": llhttp reads letters only as a scheme. A CONNECT target is read as an authority.
        var index = 0
        while index < bytes.count, Self.isLetter(bytes[index]) { index += 1 }
        guard index > 0, index + 3 <= bytes.count, bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"),
            bytes[index + 2] == UInt8(ascii: "/")
        else { return isConnect ? .authority(path: Self.nioPath(String(decoding: bytes, as: UTF8.self))) : .invalid }
        let schemeEnd = index
        index += 3
        let authorityStart = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "/"), bytes[index] != UInt8(ascii: "?") { index += 1 }
        let authorityEnd = index
        let scheme = UnsafeRawBufferPointer(rebasing: bytes[0..<schemeEnd])
        let isHTTP = Self.equalsLowercased(scheme, "http") || Self.equalsLowercased(scheme, "https")
        var authority: String?
        if isHTTP {
            // Without userinfo (RFC 9110 §4.2.4): what follows the last `@`.
            var start = authorityStart
            for offset in authorityStart..<authorityEnd where bytes[offset] == UInt8(ascii: "@") { start = offset + 1 }
            authority = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<authorityEnd]), as: UTF8.self)
        }
        return .absolute(authority: authority, path: Self.nioPath(String(decoding: bytes, as: UTF8.self)))
    }

    /// The path NIOHTTPTypes reads from a target that is not in origin form (`HTTPRequest(_:secure:splitCookie:)`):
    /// `URLComponents`' path and query when it reads a scheme (invalid bytes percent-encoded), `/` when they are
    /// empty; the target itself when it reads none.
    private static func nioPath(_ target: String) -> String {
        guard let components = URLComponents(string: target), let urlString = components.string, components.rangeOfScheme != nil else {
            return target
        }
        let pathRange = components.rangeOfPath
        let queryRange = components.rangeOfQuery
        let requestPathRange: Range<String.Index>?
        if let lowerBound = pathRange?.lowerBound ?? queryRange?.lowerBound, let upperBound = queryRange?.upperBound ?? pathRange?.upperBound {
            requestPathRange = lowerBound..<upperBound
        } else {
            requestPathRange = nil
        }
        if let pathRange, !pathRange.isEmpty, let requestPathRange {
            return String(urlString[requestPathRange])
        }
        if let requestPathRange, !requestPathRange.isEmpty {
            return "/\(urlString[requestPathRange])"
        }
        return "/"
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func equalsLowercased(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        for index in 0..<bytes.count where bytes[index] | 0x20 != lowercase.utf8Start[index] { return false }
        return true
    }
}
