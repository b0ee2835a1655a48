import NIOPosix

/// `X-Request-ID`: a well-formed incoming id is kept (so a trace spans the app, the gateway and upstreams),
/// otherwise one is generated: a random prefix and a counter, unique without a syscall per request.
///
/// Each thread has its own prefix and counter (SwiftNIO's `ThreadSpecificVariable`, one for the process), so the event
/// loops never write to a shared counter: an atomic both cores increment moves its cache line between them on every
/// request. Prefixes are 64 random bits, drawn once per thread; every generator in the process uses the same
/// per-thread sequences, so their ids never repeat either.
final class RequestIDGenerator: Sendable {
    /// One thread's prefix and counter; only that thread touches it.
    private final class Stripe: @unchecked Sendable {
        let prefix: UInt64
        var counter: UInt64 = 0

        init() {
            var generator = SystemRandomNumberGenerator()
            self.prefix = generator.next()
        }
    }

    /// Each thread's `Stripe`, released when the thread exits.
    private static let stripes = ThreadSpecificVariable<Stripe>()

    init() {}

    private static var stripe: Stripe {
        if let existing = Self.stripes.currentValue { return existing }
        let stripe = Stripe()
        Self.stripes.currentValue = stripe
        return stripe
    }

    /// 32 lowercase hex digits: this thread's prefix, then its counter (one allocation, no formatting).
    func next() -> String {
        let stripe = Self.stripe
        stripe.counter &+= 1
        let value = stripe.counter
        let prefix = stripe.prefix
        return String(unsafeUninitializedCapacity: 32) { buffer in
            Self.writeHex(prefix, into: buffer, at: 0)
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
