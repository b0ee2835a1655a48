import Synchronization

/// `X-Request-ID`: a well-formed incoming id is kept (so a trace spans the app, the gateway and upstreams),
/// otherwise one is generated: a per-process random prefix and a counter, unique without a syscall per request.
final class RequestIDGenerator: Sendable {
    private let prefix: UInt64
    private let counter = Atomic<UInt64>(0)

    init() {
        var generator = SystemRandomNumberGenerator()
        self.prefix = generator.next()
    }

    /// 32 lowercase hex digits: the prefix, then the counter (one allocation, no formatting).
    func next() -> String {
        let value = self.counter.wrappingAdd(1, ordering: .relaxed).newValue
        return String(unsafeUninitializedCapacity: 32) { buffer in
            Self.writeHex(self.prefix, into: buffer, at: 0)
            Self.writeHex(value, into: buffer, at: 16)
            return 32
        }
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

    /// `value` as 16 hex digits, zero-padded, at `offset`.
    private static func writeHex(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        for index in 0..<16 {
            let nibble = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * index)) & 0x0F
            buffer[offset + index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
        }
    }
}
