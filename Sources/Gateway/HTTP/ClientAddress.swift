import GatewayConfig
import HTTPTypes
import NIOCore

/// The address a request comes from: the peer's, or — when the peer is a trusted proxy — the rightmost
/// untrusted hop of `X-Forwarded-For` (HAProxy's and Envoy's `xff_num_trusted_hops` reasoning: only hops
/// we trust may speak for the ones before them).
enum ClientAddress {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// - Parameter peer: the connection's peer address as text (`SocketAddress.ipAddress`), nil when unknown.
    static func resolve(peer: String?, headers: HTTPFields, trustedProxies: [IPAddressRange]) -> String {
        let peerAddress = peer ?? "unknown"
        guard !trustedProxies.isEmpty, Self.isTrusted(peerAddress, trustedProxies) else { return peerAddress }
        let hops = headers[values: Self.forwardedFor].flatMap { $0.split(separator: ",") }.map {
            String($0.trimmingCharacters(" \t"))
        }
        var client = peerAddress
        for hop in hops.reversed() {
            guard let hop = Self.address(hop) else { break }
            client = hop
            if !Self.isTrusted(hop, trustedProxies) { break }
        }
        return client
    }

    /// A hop's address: an IP address, or one with a port as some proxies write it (`192.0.2.7:4711`,
    /// `[2001:db8::7]:4711`), the port dropped. Nil for anything else.
    static func address(_ hop: String) -> String? {
        if IPAddressRange.parseAddress(hop) != nil { return hop }
        guard let (host, port) = HostPort.split(Substring(hop)), port != nil, IPAddressRange.parseAddress(String(host)) != nil else {
            return nil
        }
        return String(host)
    }

    private static func isTrusted(_ address: String, _ proxies: [IPAddressRange]) -> Bool {
        proxies.contains { $0.contains(address) }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(_ characters: String) -> Substring {
        var result = self
        while let first = result.first, characters.contains(first) { result.removeFirst() }
        while let last = result.last, characters.contains(last) { result.removeLast() }
        return result
    }
}
