/// Freshness from HTTP caching headers (RFC 9111 §4.2.1, §5.1, §5.2.2).
public enum CacheControl {
    /// The seconds a response stays fresh: `max-age` less `Age`, 0 for `no-store`/`no-cache`, nil when
    /// `Cache-Control` gives no lifetime.
    ///
    /// - Parameters:
    ///   - cacheControl: every `Cache-Control` field line, in order: together one list (RFC 9110 §5.3), split at
    ///     commas outside quoted strings.
    ///   - age: every `Age` field line; the first is read.
    ///
    /// A `max-age` that is not delta-seconds (`1*DIGIT`, quoted or not) makes the response stale, and of two, the
    /// first counts (RFC 9111 §4.2.1); one too large to represent is 2^31 (§1.2.2).
    public static func freshness(cacheControl: [String], age: [String]) -> Double? {
        guard !cacheControl.isEmpty else { return nil }
        var maxAge: Double?
        for directive in Self.directives(cacheControl.joined(separator: ",")) {
            switch directive.name.lowercased() {
            case "no-store", "no-cache":
                return 0
            case "max-age" where maxAge == nil:
                guard var value = directive.value else { return 0 }
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = value.dropFirst().dropLast() }
                guard let seconds = Self.deltaSeconds(value) else { return 0 }
                maxAge = seconds
            default:
                continue
            }
        }
        guard let maxAge else { return nil }
        let currentAge = age.first.flatMap { Self.deltaSeconds(Substring($0).trimmingSpaces()) } ?? 0
        return max(0, maxAge - currentAge)
    }

    /// RFC 9111 §1.2.2: the largest delta-seconds a cache need represent.
    static let maximumDeltaSeconds: Double = 2_147_483_648

    /// `1*DIGIT` as seconds (leading zeros and all), at most ``maximumDeltaSeconds``; nil for anything else.
    static func deltaSeconds(_ text: Substring) -> Double? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        let digits = text.drop { $0 == "0" }
        guard digits.utf8.count <= 10 else { return Self.maximumDeltaSeconds }
        return min(Double(digits) ?? 0, Self.maximumDeltaSeconds)
    }

    /// The directives of a `Cache-Control` list: `name` or `name=value`, split at commas outside quoted strings,
    /// names and values trimmed.
    static func directives(_ list: String) -> [(name: Substring, value: Substring?)] {
        var result: [(name: Substring, value: Substring?)] = []
        var start = list.startIndex
        var index = list.startIndex
        var quoted = false
        var escaped = false
        func add(_ element: Substring) {
            let parts = element.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingSpaces()
            guard !name.isEmpty else { return }
            result.append((name, parts.count == 2 ? parts[1].trimmingSpaces() : nil))
        }
        while index < list.endIndex {
            let character = list[index]
            if escaped {
                escaped = false
            } else if quoted, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                add(list[start..<index])
                start = list.index(after: index)
            }
            index = list.index(after: index)
        }
        add(list[start...])
        return result
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" { result.removeLast() }
        return result
    }
}
