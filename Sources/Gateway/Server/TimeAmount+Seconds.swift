import NIOCore

extension TimeAmount {
    /// A configured duration in (possibly fractional) seconds.
    static func interval(seconds: Double) -> TimeAmount {
        .nanoseconds(Int64(seconds * 1_000_000_000))
    }
}
