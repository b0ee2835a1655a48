public import Logging
import IDTokens
import RateLimiting

/// Typed reads of environment variables, each failure naming the variable.
struct EnvironmentReader {
    private let environment: [String: String]

    init(_ environment: [String: String]) {
        self.environment = environment
    }

    /// The value, trimmed; an empty value counts as unset.
    func raw(_ name: String) -> String? {
        guard let value = self.environment[name] else { return nil }
        let trimmed = value.trimmingCharacters(in: " \t\r\n")
        return trimmed.isEmpty ? nil : trimmed
    }

    /// - Parameter expected: what a valid value is, completing "NAME must …" (`be a model name`).
    func string(_ name: String, default defaultValue: String, expected: String, validate: (String) -> Bool) throws(ConfigurationError) -> String {
        try self.optionalString(name, expected: expected, validate: validate) ?? defaultValue
    }

    /// A URL that `validate` accepts; one with an `@` (user info may hold a password) is not echoed, as in the file.
    func url(_ name: String, default defaultValue: String, expected: String, validate: (String) -> Bool) throws(ConfigurationError) -> String {
        try self.optionalString(name, mayHoldSecret: self.raw(name)?.contains("@") ?? false, expected: expected, validate: validate) ?? defaultValue
    }

    /// - Parameters:
    ///   - mayHoldSecret: the value can carry a credential (a URL with a password): never echo it.
    ///   - expected: what a valid value is, completing "NAME must …" (`look like redis://host:port`).
    func optionalString(_ name: String, mayHoldSecret: Bool = false, expected: String, validate: (String) -> Bool) throws(ConfigurationError) -> String? {
        guard let value = self.raw(name) else { return nil }
        guard validate(value) else {
            throw ConfigurationError(
                variable: name,
                message: mayHoldSecret ? "must \(expected) (the value is not shown: it may hold a credential)" : "must \(expected), not '\(value.prefix(200))'"
            )
        }
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
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
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

extension EnvironmentReader {
    /// A secret from `variable`, or from the file `fileVariable` names (trailing newline dropped); nil when neither
    /// is set. Error messages name the variable or the file, never the value.
    func secret(_ variable: String, fileVariable: String) throws(ConfigurationError) -> Secret? {
        if let value = self.raw(variable) { return Secret(value) }
        return try self.secretFile(fileVariable)
    }

    /// The secret in the file `fileVariable` names; nil when it is unset.
    func secretFile(_ fileVariable: String, minimumBytes: Int = 1) throws(ConfigurationError) -> Secret? {
        guard let path = self.raw(fileVariable) else { return nil }
        do {
            return try Secret.read(path: path, minimumBytes: minimumBytes)
        } catch {
            throw ConfigurationError(variable: fileVariable, message: error.message)
        }
    }

    /// A decimal number of seconds (`2`, `0.5`) in `range`.
    func seconds(_ name: String, default defaultValue: Double, in range: ClosedRange<Double>) throws(ConfigurationError) -> Double {
        guard let value = self.raw(name) else { return defaultValue }
        guard let number = Double(plainDecimal: value), range.contains(number) else {
            throw ConfigurationError(variable: name, message: "must be a number from \(range.lowerBound.plainText) to \(range.upperBound.plainText), not '\(value.prefix(40))'")
        }
        return number
    }

    /// A comma-separated list, entries trimmed, empty ones dropped.
    func list(_ name: String) throws(ConfigurationError) -> [String] {
        guard let value = self.raw(name) else { return [] }
        return value.split(separator: ",").map { $0.trimmingCharacters(in: " \t") }.filter { !$0.isEmpty }
    }

    /// The variable of the limit `name`: `RATE_LIMIT_` and the name upper-cased, `-` → `_`.
    static func rateLimitVariable(_ name: String) -> String {
        "RATE_LIMIT_" + String(name.uppercased().map { $0 == "-" ? "_" : $0 })
    }

    /// The `RATE_LIMIT_<NAME>` variables (set, not empty) that name none of `known` and are not other settings of
    /// the reference table (`RATE_LIMIT_SHADOW`): each adds the limit `name` (`NAME` lower-cased, `_` → `-`).
    func addedRateLimits(known: [String]) -> [(variable: String, name: String)] {
        let knownVariables = Set(known.map(Self.rateLimitVariable)).union(ConfigurationReference.variables)
        return self.environment.keys.sorted().compactMap { variable in
            guard variable.hasPrefix("RATE_LIMIT_"), !knownVariables.contains(variable), self.raw(variable) != nil else { return nil }
            return (variable, String(variable.dropFirst("RATE_LIMIT_".count).lowercased().map { $0 == "_" ? "-" : $0 }))
        }
    }

    /// `RATE_LIMIT_<NAME>` for each limit (`<count>/<seconds>[ shadow]`), then the limits the environment adds
    /// under new names, then `RATE_LIMIT_SHADOW`.
    func rateLimits(_ defaults: [RateLimit]) throws(ConfigurationError) -> [RateLimit] {
        var limits: [RateLimit] = []
        var problems = ConfigurationProblems()
        for limit in defaults {
            let variable = Self.rateLimitVariable(limit.name)
            problems.check { limits.append(try self.optionalRateLimit(variable, name: limit.name, default: limit, allowOff: false) ?? limit) }
        }
        for added in self.addedRateLimits(known: defaults.map(\.name)) {
            guard GatewayConfiguration.isRateLimitName(added.name) else {
                problems.record(
                    ConfigurationError(
                        variable: added.variable,
                        message: "names no valid limit: RATE_LIMIT_<NAME> takes a NAME of 1 to 64 letters, digits and '_', starting with a letter"
                    )
                )
                continue
            }
            problems.check {
                if let limit = try self.optionalRateLimit(added.variable, name: added.name, default: nil, allowOff: false) { limits.append(limit) }
            }
        }
        try problems.throwIfAny()
        let shadowed = try self.list("RATE_LIMIT_SHADOW")
        let names = Set(limits.map(\.name))
        for name in shadowed where name != "all" && !names.contains(name) {
            throw ConfigurationError(variable: "RATE_LIMIT_SHADOW", message: "names an unknown limit '\(name.prefix(60))' (known: \(limits.map(\.name).joined(separator: ", ")))")
        }
        return limits.map { limit in
            var limit = limit
            if shadowed.contains("all") || shadowed.contains(limit.name) { limit.shadow = true }
            return limit
        }
    }

    /// `ADMIN_HOST` and `ADMIN_PORT` over `current`; `ADMIN_PORT=off` turns the admin listener off.
    func adminListener(_ current: AdminListener?) throws(ConfigurationError) -> AdminListener? {
        var problems = ConfigurationProblems()
        var host = current?.host ?? AdminListener.defaultHost
        var port = current?.port
        problems.check { host = try self.string("ADMIN_HOST", default: host, expected: Expected.host, validate: GatewayConfiguration.isValidHost) }
        if let value = self.raw("ADMIN_PORT") {
            if value.lowercased() == "off" {
                port = nil
            } else if value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let number = Int(value),
                ConfigurationBounds.port.contains(number)
            {
                port = number
            } else {
                problems.check { () throws(ConfigurationError) in
                    throw ConfigurationError(variable: "ADMIN_PORT", message: "must be a whole number from 0 to 65535, or off, not '\(value.prefix(40))'")
                }
            }
        }
        try problems.throwIfAny()
        return port.map { AdminListener(host: host, port: $0) }
    }

    /// `<count>/<seconds>` optionally followed by ` shadow`, or `off` when allowed.
    func optionalRateLimit(_ variable: String, name: String, default defaultValue: RateLimit?, allowOff: Bool = true) throws(ConfigurationError) -> RateLimit? {
        guard let value = self.raw(variable) else { return defaultValue }
        if allowOff, value.lowercased() == "off" { return nil }
        let words = value.split(separator: " ", omittingEmptySubsequences: true)
        let shadow = words.count == 2 && words[1].lowercased() == "shadow"
        // The config file's bounds too: the same limit is valid or not however it is given.
        guard words.count == 1 || shadow, let limit = RateLimit(name: name, spec: String(words[0]), shadow: shadow),
            ConfigurationBounds.rateLimitCapacity.contains(limit.capacity), ConfigurationBounds.rateLimitPeriodSeconds.contains(limit.period)
        else {
            throw ConfigurationError(
                variable: variable,
                message: "must be <count>/<seconds> (e.g. 10/3600), optionally followed by ' shadow'\(allowOff ? ", or off" : ""), not '\(value.prefix(40))'"
            )
        }
        return limit
    }
}

/// A closed set of string values, listed in error messages.
protocol CaseNamed {
    static var names: [String] { get }
}

extension GatewayConfiguration.Mode: CaseNamed {
    static var names: [String] { ["prod", "dev"] }
}

extension FailoverRateLimitStore.Policy: CaseNamed {
    static var names: [String] { ["open", "closed"] }
}

extension Logger.Level: CaseNamed {
    static var names: [String] { Logger.Level.allCases.map(\.rawValue) }
}

extension StringProtocol {
    /// The text without the characters of `set` at either end, compared by Unicode scalar (so `"\r\n"` in `set`
    /// stands for both `\r` and `\n`, and a lone trailing `\n` is dropped).
    package func trimmingCharacters(in set: String) -> String {
        let scalars = String(self).unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, set.unicodeScalars.contains(scalars[start]) { start = scalars.index(after: start) }
        while end > start, set.unicodeScalars.contains(scalars[scalars.index(before: end)]) { end = scalars.index(before: end) }
        return String(scalars[start..<end])
    }
}
