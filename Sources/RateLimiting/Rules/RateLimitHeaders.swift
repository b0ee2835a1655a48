/// Formats the rate-limit response headers (draft-ietf-httpapi-ratelimit-headers) and `Retry-After`.
///
/// Pure functions: the gateway sets `RateLimit-Policy`, `RateLimit` and, on a 429, `Retry-After`.
public enum RateLimitHeaders {
    /// The `RateLimit-Policy` value, e.g. `"story-generation";q=10;w=3600`.
    public static func policy(_ limit: RateLimit) -> String {
        "\(quoted(limit.name));q=\(number(limit.capacity));w=\(number(limit.period))"
    }

    /// The `RateLimit` value, e.g. `"story-generation";r=9;t=360`: whole tokens remaining and the seconds,
    /// rounded up, until the next whole token (0 when full).
    public static func state(_ limit: RateLimit, _ decision: RateLimitDecision) -> String {
        self.state(quotedName: self.quoted(limit.name), decision)
    }

    /// `state` with the limit's name already quoted (``quoted(_:)``), as a caller that renders it once keeps it.
    /// Written straight into the string's storage: it is on every limited answer.
    public static func state(quotedName: String, _ decision: RateLimitDecision) -> String {
        var quotedName = quotedName
        let remaining = max(0, decision.remaining)
        let seconds = wholeSecondsUp(decision.secondsToNextToken)
        return quotedName.withUTF8 { name in
            // The name, then at most 3 + 20 + 3 + 20 bytes.
            String(unsafeUninitializedCapacity: name.count + 46) { buffer in
                var count = 0
                for byte in name {
                    buffer[count] = byte
                    count += 1
                }
                for byte in ";r=".utf8 {
                    buffer[count] = byte
                    count += 1
                }
                Self.writeDecimal(remaining, into: buffer, at: &count)
                for byte in ";t=".utf8 {
                    buffer[count] = byte
                    count += 1
                }
                Self.writeDecimal(seconds, into: buffer, at: &count)
                return count
            }
        }
    }

    /// A non-negative integer's decimal digits (at most 20).
    private static func writeDecimal(_ value: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at count: inout Int) {
        var value = UInt64(max(0, value))
        let start = count
        repeat {
            buffer[count] = UInt8(ascii: "0") + UInt8(value % 10)
            value /= 10
            count += 1
        } while value > 0
        // Written last digit first.
        var (low, high) = (start, count - 1)
        while low < high {
            buffer.swapAt(low, high)
            low += 1
            high -= 1
        }
    }

    /// The `Retry-After` value in whole seconds: `retryAfter` rounded up, and at least 1 when the request was refused.
    public static func retryAfterSeconds(_ decision: RateLimitDecision) -> Int {
        let seconds = wholeSecondsUp(decision.retryAfter)
        return decision.allowed ? seconds : max(1, seconds)
    }

    /// Rounds up to whole seconds, ignoring floating-point dust (360.0000000001 is 360), capped at a year.
    static func wholeSecondsUp(_ seconds: Double) -> Int {
        guard seconds.isFinite else { return seconds > 0 ? maximumSeconds : 0 }
        let rounded = (seconds - 1e-6).rounded(.up)
        return Int(min(Double(maximumSeconds), max(0, rounded)))
    }

    private static let maximumSeconds = 366 * 86_400

    /// An sf-string: quotes, with `\` and `"` escaped and other non-printable bytes dropped.
    public static func quoted(_ name: String) -> String {
        var result = "\""
        for scalar in name.unicodeScalars where scalar.value >= 0x20 && scalar.value < 0x7F {
            if scalar == "\"" || scalar == "\\" { result.append("\\") }
            result.unicodeScalars.append(scalar)
        }
        result.append("\"")
        return result
    }

    /// An sf-integer when whole, else an sf-decimal with up to three fraction digits.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        let thousandths = Int64((value * 1000).rounded())
        let fraction = String(thousandths % 1000)
        var digits = String(repeating: "0", count: 3 - fraction.count) + fraction
        while digits.hasSuffix("0") { digits.removeLast() }
        return digits.isEmpty ? String(thousandths / 1000) : "\(thousandths / 1000).\(digits)"
    }
}
