import HTTPTypes
import Testing

@testable import Gateway
@testable import GatewayConfig

/// Which address a request counts as: the peer's, or behind trusted proxies the rightmost untrusted hop of
/// `X-Forwarded-For`.
@Suite("Client address")
struct ClientAddressTests {
    static let proxies = [IPAddressRange("10.0.0.0/8")!]

    static func resolve(peer: String, _ forwardedFor: [String]) -> String {
        var fields = HTTPFields()
        for value in forwardedFor { fields.append(HTTPField(name: ClientAddress.forwardedFor, value: value)) }
        return ClientAddress.resolve(peer: peer, headers: fields, trustedProxies: Self.proxies)
    }

    @Test("an untrusted peer is the address, whatever it forwards")
    func untrustedPeer() {
        #expect(Self.resolve(peer: "192.0.2.1", ["198.51.100.7"]) == "192.0.2.1")
    }

    @Test("behind trusted proxies: the rightmost hop that is not one of them")
    func trustedHops() {
        #expect(Self.resolve(peer: "10.0.0.1", ["198.51.100.7"]) == "198.51.100.7")
        #expect(Self.resolve(peer: "10.0.0.1", ["203.0.113.9, 198.51.100.7, 10.1.1.1"]) == "198.51.100.7")
        #expect(Self.resolve(peer: "10.0.0.1", ["203.0.113.9", "198.51.100.7"]) == "198.51.100.7")
        #expect(Self.resolve(peer: "10.0.0.1", []) == "10.0.0.1")
    }

    @Test("a hop written with a port counts as its address, not as the proxy's", arguments: [
        ("198.51.100.7:4711", "198.51.100.7"), ("[2001:db8::7]:4711", "2001:db8::7"), ("2001:db8::7", "2001:db8::7"),
    ])
    func hopWithPort(hop: String, address: String) {
        #expect(Self.resolve(peer: "10.0.0.1", [hop]) == address)
    }

    @Test("a hop that is not an address stops the walk at the last good one", arguments: [
        "unknown", "198.51.100.7:", "198.51.100.7:123456", "198.51.100.7:80:80", "[2001:db8::7", "host.example:80", "_hidden",
    ])
    func unreadableHop(hop: String) {
        #expect(Self.resolve(peer: "10.0.0.1", [hop]) == "10.0.0.1")
        #expect(Self.resolve(peer: "10.0.0.1", ["198.51.100.7, \(hop), 10.2.2.2"]) == "10.2.2.2")
    }
}
