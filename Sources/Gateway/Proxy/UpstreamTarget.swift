import GatewayConfig
import HTTPWire

/// Where a route's requests go: the route's prefix replaced by the upstream's base path, the query kept
/// (`/api/hello?x=1` on route `/api/` to `http://h:p/base` is `http://h:p/base/hello?x=1`; an exact route maps
/// to the base path itself). The path is passed on as the client sent it (percent-encoding untouched), but a
/// path with a `.` or `..` segment is refused, however it is written (``hasDotSegment(_:)``): it could climb out of
/// the base path.
struct UpstreamTarget: Sendable {
    /// `scheme://host:port`.
    let origin: String
    /// The base path, without a trailing `/` ("" at the root).
    let basePath: String
    /// `host:port` (the `Host` of upstream requests).
    let authority: String
    /// The UTF-8 length of a prefix route's prefix; nil for an exact route.
    let prefixLength: Int?
    /// An upstream at its root: an exact route maps to `/`.
    let atRoot: Bool

    init(upstream: UpstreamURL, path: Route.PathMatch) {
        let host = upstream.host.contains(":") ? "[\(upstream.host)]" : upstream.host
        self.authority = "\(host):\(upstream.port)"
        self.origin = "\(upstream.scheme)://\(self.authority)"
        self.basePath = upstream.basePath
        self.atRoot = upstream.basePath.isEmpty
        switch path {
        case .prefix(let prefix): self.prefixLength = prefix.utf8.count
        case .exact: self.prefixLength = nil
        }
    }

    /// The upstream URL for a request's path (which the route matched) and query; nil for a dot segment.
    func url(path: String, query: String?) -> String? {
        self.path(path: path, query: query).map { self.origin + $0 }
    }

    /// The upstream request target (origin form: path and query) for a request's path and query; nil for a dot
    /// segment.
    func path(path: String, query: String?) -> String? {
        var url = self.basePath
        if let prefixLength = self.prefixLength {
            let remainder = Substring(path.utf8.dropFirst(prefixLength))
            guard !Self.hasDotSegment(remainder) else { return nil }
            url += "/"
            url += remainder
        } else if self.atRoot {
            url += "/"
        }
        if url.isEmpty { url = "/" }
        if let query {
            url += "?"
            url += query
        }
        return url
    }

    /// Whether the path has a segment an upstream could resolve as `.` or `..`, read the ways upstreams read paths:
    /// a dot may be written `%2e`; segments are split at `/` and also at `\`, `%2F` and `%5C` (nginx decodes an
    /// escaped slash before it resolves dot segments, and some servers take a backslash for a slash); and a segment's
    /// name ends at `;` or `%3B` (servlet containers such as Tomcat resolve `..;x` as `..`). The path itself is passed
    /// on unchanged: `a%2Fb` and `a;v=1` are names like any other.
    static func hasDotSegment(_ path: Substring) -> Bool {
        let utf8 = path.utf8
        guard utf8.contains(UInt8(ascii: ".")) || utf8.contains(UInt8(ascii: "%")) else { return false }
        var dots = 0
        // The segment's name so far holds nothing but dots.
        var onlyDots = true
        // Still in the segment's name: no `;` yet.
        var inName = true
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte: UInt8
            (byte, index) = Self.decodedByte(utf8, at: index)
            switch byte {
            case UInt8(ascii: "/"), UInt8(ascii: "\\"):
                if onlyDots, dots == 1 || dots == 2 { return true }
                dots = 0
                onlyDots = true
                inName = true
            case UInt8(ascii: "."): if inName { dots += 1 }
            case UInt8(ascii: ";"): inName = false
            default: if inName { onlyDots = false }
            }
        }
        return onlyDots && (dots == 1 || dots == 2)
    }

    /// The byte at `index`, a `%XX` escape decoded, and the index after it.
    private static func decodedByte(_ utf8: Substring.UTF8View, at index: Substring.UTF8View.Index) -> (UInt8, Substring.UTF8View.Index) {
        let byte = utf8[index]
        let next = utf8.index(after: index)
        guard byte == UInt8(ascii: "%"), utf8.distance(from: next, to: utf8.endIndex) >= 2,
            let high = HexDigit.value(utf8[next]), let low = HexDigit.value(utf8[utf8.index(after: next)])
        else { return (byte, next) }
        return (high << 4 | low, utf8.index(next, offsetBy: 2))
    }
}
