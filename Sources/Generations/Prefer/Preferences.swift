/// The preferences of a request's `Prefer` fields (RFC 7240) that the gateway honours: `respond-async` and
/// `wait`. Others, and malformed ones, are ignored, as §2 asks; of a preference given twice the first counts.
public struct Preferences: Sendable, Equatable {
    public static let fieldName = "Prefer"
    /// The longest `wait` honoured, in seconds; a longer one is clamped to it.
    public static let maximumWait = 60

    public var respondAsync = false
    /// `wait=<seconds>`, clamped to 0…``maximumWait``; nil when absent or not a number.
    public var wait: Int?

    public init(respondAsync: Bool = false, wait: Int? = nil) {
        self.respondAsync = respondAsync
        self.wait = wait
    }

    /// The preferences in every `Prefer` value of a request, in order.
    public init(_ values: [String]) {
        var seen: Set<String> = []
        for value in values {
            for preference in Self.split(value, on: ",") {
                // Only the preference itself counts, not its `;` parameters.
                guard let head = Self.split(preference, on: ";").first else { continue }
                let parts = head.split(separator: "=", maxSplits: 1).map { $0.trimmingOWS() }
                guard let name = parts.first?.lowercased(), !name.isEmpty, seen.insert(name).inserted else { continue }
                switch name {
                case "respond-async":
                    self.respondAsync = true
                case "wait":
                    guard parts.count == 2 else { continue }
                    var text = parts[1]
                    if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
                    guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { continue }
                    // Digits past what an Int holds are a very long wait.
                    self.wait = min(Int(text) ?? Self.maximumWait, Self.maximumWait)
                default:
                    continue
                }
            }
        }
    }

    /// `text` split on `separator` outside quoted strings.
    private static func split(_ text: some StringProtocol, on separator: Character) -> [Substring] {
        let text = Substring(text)
        var parts: [Substring] = []
        var start = text.startIndex
        var quoted = false
        var escaped = false
        for index in text.indices {
            let character = text[index]
            if escaped {
                escaped = false
            } else if quoted, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == separator, !quoted {
                parts.append(text[start..<index])
                start = text.index(after: index)
            }
        }
        parts.append(text[start...])
        return parts.map { $0.trimmingOWS() }.filter { !$0.isEmpty }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (RFC 9110's OWS).
    fileprivate func trimmingOWS() -> Substring {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
