import HTTPTypes

/// Connection-specific fields (RFC 9110 §7.6.1): they describe one hop, so a proxy removes them in both
/// directions — `Connection` and every field it names, `Keep-Alive`, `TE`, `Trailer`, `Transfer-Encoding`,
/// `Upgrade`, `Proxy-Connection` and every other `Proxy-*` field (`Proxy-Authorization` and
/// `Proxy-Authenticate` are for the proxy itself, never for the next hop). `Proxy-Status` (RFC 9209) is the one
/// exception: it reports on the whole chain and is meant to travel.
enum HopByHopHeaders {
    static let names: Set<HTTPField.Name> = [
        .connection, HTTPField.Name("Keep-Alive")!, .te, .trailer, .transferEncoding, .upgrade,
    ]

    /// Whether `name` is hop-by-hop on its own (not counting the fields `Connection` names).
    static func isHopByHop(_ name: HTTPField.Name) -> Bool {
        Self.names.contains(name) || Self.isProxyField(name.canonicalName)
    }

    /// `Proxy-*` but `Proxy-Status`, case-insensitively (`canonicalName` is lowercase).
    static func isProxyField(_ canonicalName: String) -> Bool {
        canonicalName.utf8.starts(with: "proxy-".utf8) && canonicalName != "proxy-status"
    }

    /// The fields the `Connection` values of `fields` name (RFC 9110 §7.6.1), empty when there is no `Connection`.
    static func connectionOptions(_ fields: HTTPFields) -> Set<HTTPField.Name> {
        let values = fields[values: .connection]
        guard !values.isEmpty else { return [] }
        return Self.options(values)
    }

    private static func options(_ values: [String]) -> Set<HTTPField.Name> {
        var names: Set<HTTPField.Name> = []
        for value in values {
            for option in value.split(separator: ",") {
                let token = option.trimmingSpaces()
                if let name = HTTPField.Name(String(token)) { names.insert(name) }
            }
        }
        return names
    }

    /// Whether a `Connection` value lists the `close` option (a case-insensitive token, RFC 9110 §7.6.1), read
    /// without allocating: it is checked on every answer.
    static func listsClose(_ value: String?) -> Bool {
        guard let value else { return false }
        let close = Array("close".utf8)
        for token in value.utf8.split(separator: UInt8(ascii: ",")) {
            var start = token.startIndex
            var end = token.endIndex
            while start < end, token[start] == UInt8(ascii: " ") || token[start] == UInt8(ascii: "\t") { start = token.index(after: start) }
            while start < end, token[token.index(before: end)] == UInt8(ascii: " ") || token[token.index(before: end)] == UInt8(ascii: "\t") {
                end = token.index(before: end)
            }
            if token[start..<end].elementsEqual(close, by: { $0 | 0x20 == $1 }) { return true }
        }
        return false
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
