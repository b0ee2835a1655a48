/// `host[:port]` as URLs and proxies write it (RFC 3986 §3.2.2, §3.2.3): an IPv6 host in brackets, a port of 1 to
/// 65535 in ASCII digits. It only splits: what a host may be is each caller's rule (an upstream URL's, a loopback
/// test server's, an `X-Forwarded-For` hop's).
package enum HostPort {
    /// The host (without brackets) and the port if one is given; nil when the brackets or the port are malformed.
    package static func split(_ authority: Substring) -> (host: Substring, port: Int?)? {
        let host: Substring
        let rest: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            rest = authority[authority.index(after: close)...]
        } else {
            host = authority.prefix { $0 != ":" }
            rest = authority[host.endIndex...]
        }
        guard !rest.isEmpty else { return (host, nil) }
        let digits = rest.dropFirst()
        guard rest.first == ":", (1...5).contains(digits.utf8.count),
            digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let port = Int(digits), (1...65535).contains(port)
        else { return nil }
        return (host, port)
    }
}
