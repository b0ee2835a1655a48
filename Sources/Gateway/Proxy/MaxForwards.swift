import HTTPTypes
import HummingbirdCore

/// `Max-Forwards` (RFC 9110 §7.6.2): on an OPTIONS or TRACE request, how many more intermediaries may forward it.
/// The gateway checks and updates it before forwarding: at 0 it is the final recipient and answers itself (an
/// OPTIONS with the route's `Allow`; TRACE is never routed), otherwise the upstream gets the value less one.
/// Other methods, and a value that is not a number, pass through unchanged.
enum MaxForwards {
    /// Whether the gateway must answer `request` itself instead of forwarding it.
    static func endsHere(_ request: HTTPRequest) -> Bool {
        guard Self.applies(to: request.method), let value = request.headerFields[.maxForwards] else { return false }
        return Self.hops(value) == 0
    }

    /// The value to forward in place of `value`, on a request of `method`.
    static func forwarded(_ value: String, method: HTTPRequest.Method) -> String {
        guard Self.applies(to: method), let hops = Self.hops(value), hops > 0 else { return value }
        return String(hops - 1)
    }

    /// The final recipient's answer to an OPTIONS request: what the route allows, no content.
    static func optionsAnswer(allowed: [HTTPRequest.Method]) -> Response {
        Response(status: .ok, headers: [.allow: allowed.map(\.rawValue).joined(separator: ", "), .contentLength: "0"], body: ResponseBody())
    }

    private static func applies(to method: HTTPRequest.Method) -> Bool {
        method == .options || method == .trace
    }

    /// `1*DIGIT` as a number (at most 18 digits), or nil.
    static func hops(_ value: String) -> Int? {
        let utf8 = value.utf8
        guard (1...18).contains(utf8.count) else { return nil }
        var hops = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            hops = hops * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return hops
    }
}
