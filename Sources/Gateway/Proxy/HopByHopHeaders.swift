import HTTPTypes
import HTTPWire

/// Connection-specific fields (RFC 9110 §7.6.1): they describe one hop, so a proxy removes them in both
/// directions — `Connection` and every field it names, `Keep-Alive`, `TE`, `Trailer`, `Transfer-Encoding`,
/// `Upgrade`, `Proxy-Connection` and every other `Proxy-*` field (`Proxy-Authorization` and
/// `Proxy-Authenticate` are for the proxy itself, never for the next hop). `Proxy-Status` (RFC 9209) is the one
/// exception: it reports on the whole chain and is meant to travel.
enum HopByHopHeaders {
    /// Whether `name` is hop-by-hop on its own (not counting the fields `Connection` names). Checked for every
    /// field both ways, so by the name's length and bytes, without hashing.
    static func isHopByHop(_ name: HTTPField.Name) -> Bool {
        var canonical = name.canonicalName
        return canonical.withUTF8 { Self.isHopByHop($0, 0..<$0.count) }
    }

    /// ``isHopByHop(_:)`` for a name given as the bytes `p[name]`, in any case (a token, as the parser checked).
    static func isHopByHop(_ p: UnsafeBufferPointer<UInt8>, _ name: Range<Int>) -> Bool {
        let start = name.lowerBound
        switch name.count {
        case 2: return HTTPListValue.equalsLowercased(p, start, "te")
        case 7: return HTTPListValue.equalsLowercased(p, start, "trailer") || HTTPListValue.equalsLowercased(p, start, "upgrade")
        case 10:
            return HTTPListValue.equalsLowercased(p, start, "connection") || HTTPListValue.equalsLowercased(p, start, "keep-alive")
        case 17: return HTTPListValue.equalsLowercased(p, start, "transfer-encoding") || Self.isProxyField(p, name)
        default: return Self.isProxyField(p, name)
        }
    }

    /// `Proxy-*` but `Proxy-Status`, in any case.
    private static func isProxyField(_ p: UnsafeBufferPointer<UInt8>, _ name: Range<Int>) -> Bool {
        name.count >= 6 && HTTPListValue.equalsLowercased(p, name.lowerBound, "proxy-")
            && !(name.count == 12 && HTTPListValue.equalsLowercased(p, name.lowerBound, "proxy-status"))
    }

    /// The fields the `Connection` values of `fields` name (RFC 9110 §7.6.1), empty when there is no `Connection`.
    /// Read in place, without allocating unless a field is named: `Connection: keep-alive` is on nearly every answer.
    static func connectionOptions(_ fields: HTTPFields) -> Set<HTTPField.Name> {
        // Several `Connection` fields read as one list (RFC 9110 §5.3): HTTPFields joins them with ", ".
        guard var value = fields[.connection] else { return [] }
        return value.withUTF8 { bytes in
            var names: Set<HTTPField.Name> = []
            HTTPListValue.forEachElement(bytes, 0, bytes.count) { start, end in
                // An empty element names nothing; `keep-alive` names `Keep-Alive`, which goes anyway.
                guard end > start, !(end - start == 10 && HTTPListValue.equalsLowercased(bytes, start, "keep-alive")) else { return }
                if let name = HTTPField.Name(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)) {
                    names.insert(name)
                }
            }
            return names
        }
    }

    /// Whether a `Connection` value lists the `close` option (a case-insensitive token, RFC 9110 §7.6.1), read
    /// without allocating: it is checked on every answer.
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
