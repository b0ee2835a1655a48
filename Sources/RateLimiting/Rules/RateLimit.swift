/// A named token-bucket limit: `capacity` tokens, refilled continuously at `capacity / period` tokens per second.
///
/// A bucket exists per (limit name, key), where the key is usually the caller's uid.
/// In shadow mode the limit is counted and reported but never enforced.
public struct RateLimit: Sendable, Equatable, Hashable {
    /// The limit's name, e.g. `story-generation`; it appears in the `RateLimit` headers and in the Redis key.
    public let name: String
    /// The most tokens a bucket holds: the burst size. Positive and finite.
    public let capacity: Double
    /// Seconds it takes an empty bucket to fill again. Positive and finite.
    public let period: Double
    /// When true, requests over the limit are flagged (`shadowLimited`) but allowed.
    public var shadow: Bool

    /// Creates a limit of `capacity` tokens per `period` seconds.
    ///
    /// - Precondition: `capacity` and `period` are positive and finite.
    public init(name: String, capacity: Double, period: Double, shadow: Bool = false) {
        precondition(capacity > 0 && capacity.isFinite, "capacity must be positive and finite")
        precondition(period > 0 && period.isFinite, "period must be positive and finite")
        self.name = name
        self.capacity = capacity
        self.period = period
        self.shadow = shadow
    }

    /// Tokens added per second: `capacity / period`.
    public var refillPerSecond: Double { self.capacity / self.period }

    /// Seconds it takes to refill `tokens` tokens, computed as `tokens * period / capacity` so whole
    /// fractions of the period come out exact (1 token of 10 per 3600 s is 360 s, not 360.00000000000006).
    @inlinable
    public func secondsToRefill(_ tokens: Double) -> Double {
        tokens * self.period / self.capacity
    }
}

extension RateLimit {
    /// Largest count `init(name:spec:)` accepts.
    public static let maximumCapacity: Double = 1_000_000_000
    /// Longest period `init(name:spec:)` accepts: 366 days.
    public static let maximumPeriod: Double = 366 * 86_400

    /// Parses `<count>/<seconds>`, e.g. `"10/3600"`; whitespace around either number is ignored.
    ///
    /// Returns nil when the spec is malformed: not exactly two plain decimal numbers (digits with at most
    /// one `.`; no sign, exponent, hex, `inf` or `nan`), a count not in `(0, maximumCapacity]`, or seconds
    /// not in `(0, maximumPeriod]`.
    public init?(name: String, spec: String, shadow: Bool = false) {
        let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let count = Self.parseDecimal(parts[0]),
            let seconds = Self.parseDecimal(parts[1]),
            count > 0, count <= Self.maximumCapacity,
            seconds > 0, seconds <= Self.maximumPeriod
        else { return nil }
        self.init(name: name, capacity: count, period: seconds, shadow: shadow)
    }

    private static func parseDecimal(_ text: Substring) -> Double? {
        let trimmed = text.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed()
        let string = String(trimmed)
        var dots = 0
        var digits = 0
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "."): dots += 1
            default: return nil
            }
        }
        guard digits > 0, dots <= 1, digits <= 24, let value = Double(string), value.isFinite else { return nil }
        return value
    }
}
