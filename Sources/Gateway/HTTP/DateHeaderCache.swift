import Synchronization

/// The `Date` header value, formatted once per second rather than once per response.
final class DateHeaderCache: Sendable {
    private let cached = Mutex<(second: Int, value: String)>((-1, ""))

    func value(now: Double) -> String {
        let second = Int(now)
        return self.cached.withLock { cached in
            if cached.second != second {
                cached = (second, HTTPDate.imfFixdate(now))
            }
            return cached.value
        }
    }
}
