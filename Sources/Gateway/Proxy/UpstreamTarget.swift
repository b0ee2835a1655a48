/// Where a route's requests go: the route's prefix replaced by the upstream's base path, the query kept
/// (`/api/hello?x=1` on route `/api/` to `http://h:p/base` is `http://h:p/base/hello?x=1`; an exact route maps
/// to the base path itself). The path is passed on as the client sent it (percent-encoding untouched), but a
/// path with a `.` or `..` segment (also percent-encoded) is refused: it could climb out of the base path.
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

    /// Whether a `/`-separated segment is `.` or `..`, with each dot possibly written `%2e` or `%2E`.
    static func hasDotSegment(_ path: Substring) -> Bool {
        let utf8 = path.utf8
        guard utf8.contains(UInt8(ascii: ".")) || utf8.contains(UInt8(ascii: "%")) else { return false }
        for segment in utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) {
            var dots = 0
            var index = segment.startIndex
            var onlyDots = true
            while index < segment.endIndex, onlyDots {
                if segment[index] == UInt8(ascii: ".") {
                    dots += 1
                    index = segment.index(after: index)
                } else if segment[index] == UInt8(ascii: "%"), segment.distance(from: index, to: segment.endIndex) >= 3,
                    segment[segment.index(index, offsetBy: 1)] == UInt8(ascii: "2"),
                    segment[segment.index(index, offsetBy: 2)] | 0x20 == UInt8(ascii: "e")
                {
                    dots += 1
                    index = segment.index(index, offsetBy: 3)
                } else {
                    onlyDots = false
                }
            }
            if onlyDots, dots == 1 || dots == 2 { return true }
        }
        return false
    }
}
