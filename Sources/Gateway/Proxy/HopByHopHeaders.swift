import HTTPTypes

/// Connection-specific fields (RFC 9110 §7.6.1): they describe one hop, so a proxy removes them in both
/// directions — `Connection` and every field it names, `Keep-Alive`, `TE`, `Trailer`, `Transfer-Encoding`,
/// `Upgrade`, `Proxy-Connection` and every other `Proxy-*` field (`Proxy-Authorization` and
/// `Proxy-Authenticate` are for the proxy itself, never for the next hop). `Proxy-Status` (RFC 9209) is the one
/// exception: it reports on the whole chain and is meant to travel.
enum HopByHopHeaders {
    /// Whether `name` is hop-by-hop on its own (not counting the fields `Connection` names). Checked for every
    /// field both ways, so by the lowercase name's length and text, without hashing.
    static func isHopByHop(_ name: HTTPField.Name) -> Bool {
        let canonical = name.canonicalName
        switch canonical.utf8.count {
        case 2: return canonical == "te"
        case 7: return canonical == "trailer" || canonical == "upgrade"
        case 10: return canonical == "connection" || canonical == "keep-alive"
        case 17: return canonical == "transfer-encoding" || Self.isProxyField(canonical)
        default: return Self.isProxyField(canonical)
        }
    }

    /// `Proxy-*` but `Proxy-Status`, case-insensitively (`canonicalName` is lowercase).
    static func isProxyField(_ canonicalName: String) -> Bool {
        canonicalName.utf8.starts(with: "proxy-".utf8) && canonicalName != "proxy-status"
    }

    /// The fields the `Connection` values of `fields` name (RFC 9110 §7.6.1), empty when there is no `Connection`.
    static func connectionOptions(_ fields: HTTPFields) -> Set<HTTPField.Name> {
        // Several `Connection` fields read as one list (RFC 9110 §5.3): HTTPFields joins them with ", ".
        guard let value = fields[.connection] else { return [] }
        // `keep-alive` alone (on nearly every answer) names `Keep-Alive`, which goes anyway: no set to build.
        if Self.isKeepAlive(value) { return [] }
        var names: Set<HTTPField.Name> = []
        for option in value.split(separator: ",") {
            let token = option.trimmingSpaces()
            if token.utf8.count == 10, token.lowercased() == "keep-alive" { continue }
            if let name = HTTPField.Name(String(token)) { names.insert(name) }
        }
        return names
    }

    /// Whether a `Connection` value is the one token `keep-alive` (any case, optional whitespace around it), read
    /// without allocating.
    private static func isKeepAlive(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { bytes in
            var first = 0
            var last = bytes.count
            while first < last, bytes[first] == UInt8(ascii: " ") || bytes[first] == UInt8(ascii: "\t") { first += 1 }
            while first < last, bytes[last - 1] == UInt8(ascii: " ") || bytes[last - 1] == UInt8(ascii: "\t") { last -= 1 }
            guard last - first == 10 else { return false }
            for (offset, expected) in "keep-alive".utf8.enumerated() where bytes[first + offset] | 0x20 != expected {
                return false
            }
            return true
        }
    }

    /// Whether a `Connection` value lists the `close` option (a case-insensitive token, RFC 9110 §7.6.1), read
    /// without allocating: it is checked on every answer.
    static func listsClose(_ value: String?) -> Bool {
        guard var value else { return false }
        return value.withUTF8 { bytes in
            var start = 0
            while start <= bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
                // One token, less the whitespace around it.
                var first = start
                var last = end
                while first < last, bytes[first] == UInt8(ascii: " ") || bytes[first] == UInt8(ascii: "\t") { first += 1 }
                while first < last, bytes[last - 1] == UInt8(ascii: " ") || bytes[last - 1] == UInt8(ascii: "\t") { last -= 1 }
                if last - first == 5, bytes[first] | 0x20 == UInt8(ascii: "c"), bytes[first + 1] | 0x20 == UInt8(ascii: "l"),
                    bytes[first + 2] | 0x20 == UInt8(ascii: "o"), bytes[first + 3] | 0x20 == UInt8(ascii: "s"), bytes[first + 4] | 0x20 == UInt8(ascii: "e")
                {
                    return true
                }
                start = end + 1
            }
            return false
        }
    }

    /// The upstream's response fields without the hop-by-hop ones: what the client gets. `Content-Length` stays
    /// (the body is passed through unchanged); the gateway's server frames the body itself.
    static func responseFields(_ fields: HTTPFields) -> HTTPFields {
        let listed = Self.connectionOptions(fields)
        var result = HTTPFields()
        result.reserveCapacity(fields.count)
        for field in fields where !Self.isHopByHop(field.name) && (listed.isEmpty || !listed.contains(field.name)) {
            result.append(field)
        }
        return result
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (optional whitespace, RFC 9110 §5.6.3).
    fileprivate func trimmingSpaces() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
