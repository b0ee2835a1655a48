/// Freshness from HTTP caching headers (RFC 9111 §4.2.1, §5.1, §5.2.2).
public enum CacheControl {
    /// The seconds a response stays fresh: `max-age` less `Age`, 0 for `no-store`/`no-cache`,
    /// nil when `Cache-Control` gives no lifetime.
    public static func freshness(cacheControl: String?, age: String?) -> Double? {
        guard let cacheControl else { return nil }
        var maxAge: Double?
        for rawDirective in cacheControl.split(separator: ",") {
            let directive = rawDirective.trimmingSpaces()
            let parts = directive.split(separator: "=", maxSplits: 1)
            let name = parts[0].trimmingSpaces().lowercased()
            switch name {
            case "no-store", "no-cache":
                return 0
            case "max-age" where parts.count == 2:
                var value = parts[1].trimmingSpaces()
                if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                    value = value.dropFirst().dropLast()
                }
                // delta-seconds: digits only; an invalid max-age makes the response stale (RFC 9111 §4.2.1).
                guard !value.isEmpty, value.allSatisfy(\.isASCIIDigit) else { return 0 }
                maxAge = Double(value.prefix(10)) ?? 0
            default:
                continue
            }
        }
        guard let maxAge else { return nil }
        let currentAge = age.flatMap { value -> Double? in
            let trimmed = Substring(value).trimmingSpaces()
            guard !trimmed.isEmpty, trimmed.allSatisfy(\.isASCIIDigit) else { return nil }
            return Double(trimmed.prefix(10))
        } ?? 0
        return max(0, maxAge - currentAge)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { self >= "0" && self <= "9" }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
