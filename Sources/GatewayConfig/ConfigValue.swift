import Yams

/// One value of a config file together with where it is (its key path and line), so every error can say both.
///
/// The typed reads are strict: a number is a plain YAML number (`8080`, not `"8080"`, `0x1F90` or `8_080`), a
/// boolean is `true`/`false` (YAML's `yes`/`no`/`on`/`off` too), and an empty value is `null`.
struct ConfigValue {
    let node: Node
    /// The key path, e.g. `routes[2].upstream`.
    let path: String
    let file: String

    var line: Int? { self.node.mark?.line }

    func error(_ message: String) -> ConfigurationError {
        ConfigurationError(file: self.file, line: self.line, key: self.path, message: message)
    }

    /// The value under `key` of this mapping value, or of this list value at `index`.
    func child(_ node: Node, key: String) -> ConfigValue {
        ConfigValue(node: node, path: self.path.isEmpty ? key : "\(self.path).\(key)", file: self.file)
    }

    func child(_ node: Node, index: Int) -> ConfigValue {
        ConfigValue(node: node, path: "\(self.path)[\(index)]", file: self.file)
    }

    /// The node's resolved tag (`!!int` for a plain `8080`, `!!str` for a quoted `"8080"`).
    var tagName: Tag.Name { Tag.Name(rawValue: self.node.tag.rawValue) }

    /// `null`, `~` or nothing at all.
    var isNull: Bool {
        guard case .scalar = self.node else { return false }
        return self.tagName == .null
    }

    /// What the value is, for messages that must not show it: `a list`, `a mapping`, `null`, or the scalar quoted.
    var shown: String {
        switch self.node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case .scalar(let scalar):
            if self.isNull { return "null" }
            let text = scalar.string.prefix(80)
            return self.tagName == .str && scalar.style != .plain && scalar.style != .any ? "the string '\(text)'" : "'\(text)'"
        }
    }

    /// Any scalar but `null`, as its text.
    func string() throws(ConfigurationError) -> String {
        guard case .scalar(let scalar) = self.node, !self.isNull else { throw self.error("must be a string, not \(self.shown)") }
        return scalar.string
    }

    /// A string that `isValid` accepts; `expected` describes it (`an https URL`). `secret`: never echo the value.
    func string(_ expected: String, secret: Bool = false, isValid: (String) -> Bool) throws(ConfigurationError) -> String {
        let text = try self.string()
        guard isValid(text) else {
            throw self.error(secret ? "must be \(expected) (the value is not shown: it may hold a credential)" : "must be \(expected), not \(self.shown)")
        }
        return text
    }

    /// A whole number in `range`.
    func integer(in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard self.isNumber, let number = Int(plainDigits: self.node.scalar?.string ?? ""), range.contains(number) else {
            throw self.error("must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(self.shown)")
        }
        return number
    }

    /// A plain decimal number in `range` (`30`, `0.5`).
    func number(in range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
        guard self.isNumber, let number = Double(plainDecimal: self.node.scalar?.string ?? ""), range.contains(number) else {
            throw self.error("must be a number from \(range.lowerBound.plainText) to \(range.upperBound.plainText), not \(self.shown)")
        }
        return number
    }

    func boolean() throws(ConfigurationError) -> Bool {
        guard case .scalar(let scalar) = self.node, self.tagName == .bool, let value = Bool.construct(from: scalar) else {
            throw self.error("must be true or false, not \(self.shown)")
        }
        return value
    }

    /// One of a closed set of names (`prod`/`dev`), the error listing them.
    func choice<Value: RawRepresentable & CaseNamed>(_ type: Value.Type) throws(ConfigurationError) -> Value where Value.RawValue == String {
        guard case .scalar(let scalar) = self.node, !self.isNull, let value = Value(rawValue: scalar.string) else {
            throw self.error("must be one of \(Value.names.joined(separator: ", ")), not \(self.shown)\(Suggestion.phrase(self.node.scalar?.string, among: Value.names))")
        }
        return value
    }

    /// The entries of a list; `null` is an empty list.
    func list() throws(ConfigurationError) -> [ConfigValue] {
        if self.isNull { return [] }
        guard case .sequence(let sequence) = self.node else { throw self.error("must be a list, not \(self.shown)") }
        return sequence.enumerated().map { index, node in self.child(node, index: index) }
    }

    /// The entries of a mapping whose keys are all in `allowed` (nil: any key); `null` is an empty mapping.
    func mapping(_ allowed: [String]?) throws(ConfigurationError) -> ConfigMapping {
        try ConfigMapping(self, allowed: allowed)
    }

    private var isNumber: Bool {
        guard case .scalar(let scalar) = self.node, scalar.style == .plain || scalar.style == .any else { return false }
        return self.tagName == .int || self.tagName == .float
    }
}
