import Synchronization

/// `X-Request-ID`: a well-formed incoming id is kept (so a trace spans the app, the gateway and upstreams),
/// otherwise one is generated: a per-process random prefix and a counter, unique without a syscall per request.
final class RequestIDGenerator: Sendable {
    private let prefix: String
    private let counter = Atomic<UInt64>(0)

    init() {
        var generator = SystemRandomNumberGenerator()
        let random = generator.next() as UInt64
        self.prefix = Self.hex(random)
    }

    func next() -> String {
        let value = self.counter.wrappingAdd(1, ordering: .relaxed).newValue
        return self.prefix + Self.hex(value)
    }

    /// 1 to 128 characters of `A-Z a-z 0-9 - _ . : = + / @`: safe to echo in headers, JSON and log lines.
    static func isAcceptable(_ id: some StringProtocol) -> Bool {
        let utf8 = id.utf8
        guard (1...128).contains(utf8.count) else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "="),
                UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "@"):
                return true
            default:
                return false
            }
        }
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
