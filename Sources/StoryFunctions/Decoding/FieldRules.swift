/// The checks every request runs after decoding, each throwing 400 `INVALID_ARGUMENT` that names the field.
enum FieldRules {
    /// `value` trimmed; it must not be empty and must have at most `maximum` characters, counted as Unicode code
    /// points: as JSON Schema's `maxLength` in the API description counts them, and as OpenAI's limits do. (Counted
    /// as user-perceived characters, one "character" of `a` and 40,000 combining marks passed a 4,000 bound and
    /// reached OpenAI over its own.)
    static func text(_ value: String, _ field: String, maximum: Int) throws(FunctionError) -> String {
        let trimmed = value.trimmedWhitespace
        if trimmed.isEmpty { throw .invalidArgument(field: field, "`\(field)` must not be empty.") }
        if trimmed.unicodeScalars.count > maximum {
            throw .invalidArgument(field: field, "`\(field)` must be at most \(maximum) characters.")
        }
        return trimmed
    }

    /// An optional string: absent, null or blank is nil; otherwise as `text`.
    static func optionalText(_ value: String?, _ field: String, maximum: Int) throws(FunctionError) -> String? {
        guard let value, !value.trimmedWhitespace.isEmpty else { return nil }
        return try self.text(value, field, maximum: maximum)
    }

    static func number(_ value: Double, _ field: String, in range: ClosedRange<Double>) throws(FunctionError) -> Double {
        guard value.isFinite, range.contains(value) else {
            throw .invalidArgument(field: field, "`\(field)` must be between \(self.format(range.lowerBound)) and \(self.format(range.upperBound)).")
        }
        return value
    }

    /// A whole number within `range` (JSON numbers arrive as `Double`, so `2.5` is named as this field's fault).
    static func integer(_ value: Double, _ field: String, in range: ClosedRange<Int>) throws(FunctionError) -> Int {
        guard value.isFinite, value == value.rounded() else {
            throw .invalidArgument(field: field, "`\(field)` must be an integer.")
        }
        guard Double(range.lowerBound) <= value, value <= Double(range.upperBound) else {
            throw .invalidArgument(field: field, "`\(field)` must be between \(range.lowerBound) and \(range.upperBound).")
        }
        return Int(value)
    }

    /// One of `allowed` (compared case-insensitively after trimming); returns the canonical value.
    static func oneOf(_ value: String, _ field: String, allowed: [String]) throws(FunctionError) -> String {
        let key = value.trimmedWhitespace.lowercased()
        guard let match = allowed.first(where: { $0 == key }) else {
            throw .invalidArgument(field: field, "`\(field)` must be one of: \(allowed.joined(separator: ", ")).")
        }
        return match
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

extension String {
    /// The string without leading and trailing whitespace and newlines.
    var trimmedWhitespace: String {
        guard let first = self.firstIndex(where: { !$0.isWhitespace }) else { return "" }
        let last = self.lastIndex(where: { !$0.isWhitespace })!
        return String(self[first...last])
    }
}
