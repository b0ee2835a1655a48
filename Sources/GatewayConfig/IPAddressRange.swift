#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address or CIDR block (`10.0.0.0/8`, `::1`), for `TRUSTED_PROXIES`.
public struct IPAddressRange: Sendable, Equatable, CustomStringConvertible {
    let network: [UInt8]
    let prefixLength: Int

    /// Parses `address` or `address/prefix`; nil when malformed.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let bytes = Self.parseAddress(String(parts[0])) else { return nil }
        let maximum = bytes.count * 8
        var prefix = maximum
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...maximum).contains(value) else { return nil }
            prefix = value
        }
        self.network = Self.mask(bytes, prefix)
        self.prefixLength = prefix
    }

    public var description: String {
        Self.format(self.network) + "/" + String(self.prefixLength)
    }

    /// Whether `address` (a textual IP) lies in the range. IPv4-mapped IPv6 addresses count as IPv4.
    public func contains(_ address: String) -> Bool {
        guard var bytes = Self.parseAddress(address) else { return false }
        if bytes.count == 16, self.network.count == 4, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            bytes = Array(bytes[12...])
        }
        guard bytes.count == self.network.count else { return false }
        return Self.mask(bytes, self.prefixLength) == self.network
    }

    package static func parseAddress(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    private static func mask(_ bytes: [UInt8], _ prefix: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = min(max(prefix - index * 8, 0), 8)
            return bits == 8 ? byte : byte & ~(0xFF >> UInt8(bits))
        }
    }

    private static func format(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        var copy = bytes
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        return copy.withUnsafeMutableBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
                ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        }
    }
}
