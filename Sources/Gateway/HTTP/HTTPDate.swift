#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Dates the gateway writes: the `Date` header (RFC 9110 §5.6.7 IMF-fixdate) and JSON timestamps (RFC 3339).
enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 22 Nov 2026 07:55:00 GMT`
    static func imfFixdate(_ seconds: Double) -> String {
        let time = Self.brokenDown(seconds)
        return "\(Self.weekdays[Int(time.tm_wday)]), \(Self.pad(time.tm_mday)) \(Self.months[Int(time.tm_mon)]) \(time.tm_year + 1900) "
            + "\(Self.pad(time.tm_hour)):\(Self.pad(time.tm_min)):\(Self.pad(time.tm_sec)) GMT"
    }

    /// `2026-11-22T07:55:00.123Z`
    static func rfc3339(_ seconds: Double) -> String {
        let time = Self.brokenDown(seconds)
        let millis = Int((seconds - seconds.rounded(.down)) * 1000)
        let millisText = String(millis)
        return "\(time.tm_year + 1900)-\(Self.pad(time.tm_mon + 1))-\(Self.pad(time.tm_mday))T"
            + "\(Self.pad(time.tm_hour)):\(Self.pad(time.tm_min)):\(Self.pad(time.tm_sec))."
            + String(repeating: "0", count: 3 - millisText.count) + millisText + "Z"
    }

    private static func brokenDown(_ seconds: Double) -> tm {
        var clock = time_t(seconds.rounded(.down))
        var result = tm()
        gmtime_r(&clock, &result)
        return result
    }

    private static func pad(_ value: Int32) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
