/// Reads how long a server asked the client to wait: `retry-after-ms` (milliseconds, as OpenAI sends it
/// and its own clients read it) or `Retry-After` (delay-seconds, or an HTTP-date). Pure: the current time
/// is an input.
enum RetryAfter {
    /// The wait requested by `headers`, or `nil` when none is given or it cannot be read.
    /// A date in the past gives zero; a longer wait than `AIError.maximumRetryAfter` is that maximum.
    ///
    /// - Parameter now: Seconds since 1970-01-01T00:00:00Z, for HTTP-dates.
    static func parse(retryAfterMilliseconds: String?, retryAfter: String?, now: Double) -> Duration? {
        if let text = retryAfterMilliseconds?.trimmed, let milliseconds = Double(text),
            milliseconds.isFinite, milliseconds >= 0
        {
            return .milliseconds(min(milliseconds, Self.maximumSeconds * 1000))
        }
        guard let text = retryAfter?.trimmed, !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Digits only, however many: a wait that long is the maximum.
            return .seconds(Int(text).map { min($0, Int(Self.maximumSeconds)) } ?? Int(Self.maximumSeconds))
        }
        if let date = HTTPDate.parse(text) {
            return .seconds(min(max(0, date - now), Self.maximumSeconds))
        }
        return nil
    }

    private static let maximumSeconds = AIError.maximumRetryAfter
}

/// RFC 9110 IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form servers send.
enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since 1970-01-01T00:00:00Z, or `nil` if `text` is not an IMF-fixdate.
    static func parse(_ text: String) -> Double? {
        // "Sun," "06" "Nov" "1994" "08:49:37" "GMT"
        let fields = text.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 6, fields[0].hasSuffix(","), fields[5] == "GMT",
            let day = Int(fields[1]), (1...31).contains(day),
            let monthIndex = Self.months.firstIndex(of: String(fields[2])),
            let year = Int(fields[3]), fields[3].count == 4
        else { return nil }
        let time = fields[4].split(separator: ":")
        guard time.count == 3, let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2]),
            (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        let days = Self.daysFromCivil(year: year, month: monthIndex + 1, day: day)
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthFromMarch = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension String {
    fileprivate var trimmed: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
