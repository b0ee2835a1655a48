/// The rule for the URLs the service-account client and its users call (`token_uri`, the Google API base URLs):
/// https, or plain http only to a loopback host (a test server), and never with user info in the authority
/// (`http://127.0.0.1@example.com/` is example.com).
public enum GoogleEndpointURL {
    /// Whether `url` may be called.
    public static func isAllowed(_ url: String) -> Bool {
        let isHTTPS = url.hasPrefix("https://")
        guard isHTTPS || url.hasPrefix("http://"), !url.contains(" ") else { return false }
        let authority = url.dropFirst(isHTTPS ? "https://".count : "http://".count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return false }
        return isHTTPS || Self.isLoopbackAuthority(authority)
    }

    /// `host[:port]` whose host is `localhost`, `::1` (in brackets) or an IPv4 address in 127.0.0.0/8.
    static func isLoopbackAuthority(_ authority: Substring) -> Bool {
        let host: Substring
        var rest: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            host = authority[authority.index(after: authority.startIndex)..<close]
            rest = authority[authority.index(after: close)...]
        } else {
            host = authority.prefix { $0 != ":" }
            rest = authority[host.endIndex...]
        }
        if !rest.isEmpty {
            guard rest.first == ":" else { return false }
            rest = rest.dropFirst()
            guard (1...5).contains(rest.utf8.count), rest.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let port = Int(rest), (1...65535).contains(port)
            else { return false }
        }
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            (1...3).contains(part.utf8.count) && part.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } && Int(part)! <= 255
        }
    }

    /// `base` without trailing slashes, so that a path can be appended.
    public static func trimmed(_ base: String) -> String {
        var base = Substring(base)
        while base.hasSuffix("/") { base = base.dropLast() }
        return String(base)
    }
}
