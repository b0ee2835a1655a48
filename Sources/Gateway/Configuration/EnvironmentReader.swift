public import Logging

/// Typed reads of environment variables, each failure naming the variable.
struct EnvironmentReader {
    private let environment: [String: String]

    init(_ environment: [String: String]) {
        self.environment = environment
    }

    /// The value, trimmed; an empty value counts as unset.
    private func raw(_ name: String) -> String? {
        guard let value = self.environment[name] else { return nil }
        let trimmed = value.trimmingCharacters(in: " \t\r\n")
        return trimmed.isEmpty ? nil : trimmed
    }

    func string(_ name: String, default defaultValue: String, validate: (String) -> Bool) throws(ConfigurationError) -> String {
        try self.optionalString(name, validate: validate) ?? defaultValue
    }

    func optionalString(_ name: String, validate: (String) -> Bool) throws(ConfigurationError) -> String? {
        guard let value = self.raw(name) else { return nil }
        guard validate(value) else { throw ConfigurationError(variable: name, message: "has an invalid value '\(value.prefix(200))'") }
        return value
    }

    func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let value = self.raw(name) else { return defaultValue }
        guard value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let number = Int(value), range.contains(number) else {
            throw ConfigurationError(variable: name, message: "must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(value.prefix(40))'")
        }
        return number
    }

    func boolean(_ name: String, default defaultValue: Bool) throws(ConfigurationError) -> Bool {
        guard let value = self.raw(name) else { return defaultValue }
        switch value.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw ConfigurationError(variable: name, message: "must be true or false, not '\(value.prefix(40))'")
        }
    }

    func choice<Value: RawRepresentable & CaseNamed>(_ name: String, default defaultValue: Value) throws(ConfigurationError) -> Value
    where Value.RawValue == String {
        guard let value = self.raw(name) else { return defaultValue }
        guard let parsed = Value(rawValue: value) else {
            throw ConfigurationError(variable: name, message: "must be one of \(Value.names.joined(separator: ", ")), not '\(value.prefix(40))'")
        }
        return parsed
    }
}

/// A closed set of string values, listed in error messages.
protocol CaseNamed {
    static var names: [String] { get }
}

extension GatewayConfiguration.Mode: CaseNamed {
    static var names: [String] { ["prod", "dev"] }
}

extension Logger.Level: CaseNamed {
    static var names: [String] { Logger.Level.allCases.map(\.rawValue) }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var result = Substring(self)
        while let first = result.first, set.contains(first) { result.removeFirst() }
        while let last = result.last, set.contains(last) { result.removeLast() }
        return String(result)
    }
}
