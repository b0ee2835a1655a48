#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import NIOCore

/// A deterministic byte stream for streaming tests: byte `i` is `table[i % period]`, with a prime period (about
/// 1 MiB) of pseudo-random bytes, so a lost, repeated or reordered chunk shows at the next byte compared.
/// Both producing and checking work chunk by chunk, without holding a body.
public enum BodyPattern {
    /// A prime, so no chunk size lines up with it.
    static let period = 1_048_573
    static let table: [UInt8] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<period).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }()

    /// `count` pattern bytes starting at `offset`.
    public static func buffer(offset: Int, count: Int) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        var position = offset % Self.period
        var remaining = count
        Self.table.withUnsafeBytes { table in
            while remaining > 0 {
                let run = min(remaining, Self.period - position)
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: table[position..<(position + run)]))
                remaining -= run
                position = 0
            }
        }
        return buffer
    }

    /// Counts bytes and checks each against the pattern, one buffer at a time.
    public struct Checker: Sendable {
        /// Bytes seen so far.
        public private(set) var count = 0
        /// Whether every byte so far matched the pattern.
        public private(set) var intact = true

        public init() {}

        public mutating func consume(_ buffer: ByteBuffer) {
            buffer.withUnsafeReadableBytes { bytes in
                BodyPattern.table.withUnsafeBytes { table in
                    var checked = 0
                    while checked < bytes.count, self.intact {
                        let position = (self.count + checked) % BodyPattern.period
                        let run = min(bytes.count - checked, BodyPattern.period - position)
                        if memcmp(bytes.baseAddress! + checked, table.baseAddress! + position, run) != 0 { self.intact = false }
                        checked += run
                    }
                }
            }
            self.count += buffer.readableBytes
        }
    }
}
