/// RFC 9110 §14: `Range: bytes=...` for a resource of `length` bytes.
///
/// One range only: `first-last`, `first-` and `-suffix`. A header that is absent, not `bytes`, syntactically
/// invalid (including `last < first`) or that asks for several ranges is ignored (`.full`, which the RFC allows).
/// A `first` at or past the end, or a zero suffix, is `.unsatisfiable` (416). `last` past the end is clamped.
public enum ByteRange: Equatable, Sendable {
    case full
    case partial(Range<Int>)
    case unsatisfiable

    public static func parse(_ header: String?, length: Int) -> ByteRange {
        guard let header else { return .full }
        let value = header.trimmedWhitespace
        guard value.count > 6, value.prefix(6).lowercased() == "bytes=" else { return .full }
        let spec = value.dropFirst(6)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .full }
        let firstText = spec[..<dash], lastText = spec[spec.index(after: dash)...]
        if firstText.isEmpty {
            guard let suffix = self.number(lastText) else { return .full }
            if suffix == 0 { return .unsatisfiable }
            if length == 0 { return .full }
            return .partial(max(0, length - suffix)..<length)
        }
        guard let first = self.number(firstText) else { return .full }
        if lastText.isEmpty {
            return first < length ? .partial(first..<length) : .unsatisfiable
        }
        guard let last = self.number(lastText), last >= first else { return .full }
        guard first < length else { return .unsatisfiable }
        return .partial(first..<(min(last, length - 1) + 1))
    }

    /// Digits only; a value too large for `Int` saturates (it is past any real length).
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var value = 0
        for byte in text.utf8 {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int(byte - 0x30))
            if overflow1 || overflow2 { return Int.max / 2 }
            value = sum
        }
        return value
    }
}
