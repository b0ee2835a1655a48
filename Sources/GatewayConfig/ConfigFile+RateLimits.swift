import RateLimiting
import Yams

/// `rate_limits` and `auth_failure_limit`.
extension ConfigFile {
    static let rateLimitKeys = ["capacity", "period_seconds", "shadow"]

    /// A limit named like a default one replaces it; a new name adds a limit. Records every bad entry.
    ///
    /// - Returns: the limits the file defines under new names (not a built-in limit's), with their entries.
    static func applyRateLimits(
        _ top: ConfigMapping, to configuration: inout GatewayConfiguration, problems: inout ConfigurationProblems
    ) -> [(name: String, entry: ConfigValue, keyLine: Int?)] {
        var defined: [(name: String, entry: ConfigValue, keyLine: Int?)] = []
        if let limitsValue = top["rate_limits"] {
            for entry in ConfigMapping(limitsValue, allowed: nil, problems: &problems).entries {
                guard GatewayConfiguration.isRateLimitName(entry.key) else {
                    problems.record(
                        ConfigurationError(
                            file: entry.value.file, line: entry.keyLine, key: entry.value.path,
                            message: "a limit name is 1 to 64 lowercase letters, digits and '-', starting with a letter (it names RATE_LIMIT_<NAME> and appears in the RateLimit headers)"
                        )
                    )
                    continue
                }
                guard let limit = problems.value({ () throws(ConfigurationError) in try Self.rateLimit(entry.value, name: entry.key) }) else { continue }
                if let index = configuration.rateLimits.firstIndex(where: { $0.name == entry.key }) {
                    configuration.rateLimits[index] = limit
                } else {
                    configuration.rateLimits.append(limit)
                }
                if !RateLimit.defaults.contains(where: { $0.name == entry.key }) {
                    defined.append((entry.key, entry.value, entry.keyLine))
                }
            }
        }
        if let failureValue = top["auth_failure_limit"] {
            if failureValue.tagName == .bool, (try? failureValue.boolean()) == false {
                configuration.authFailureLimit = nil
            } else if failureValue.node.mapping != nil {
                problems.check { () throws(ConfigurationError) in
                    configuration.authFailureLimit = try Self.rateLimit(failureValue, name: "auth-failures")
                }
            } else {
                problems.record(failureValue.error("must be {capacity, period_seconds} or off, not \(failureValue.shown)"))
            }
        }
        return defined
    }

    /// A limit the file adds that no route uses is most likely a misspelt name whose intended override never
    /// applies: an error, with the closest configured limit. (The built-in limits may go unused: a file that
    /// lists its own routes need not mention them.)
    static func checkLimitsUsed(
        _ defined: [(name: String, entry: ConfigValue, keyLine: Int?)], configuration: GatewayConfiguration,
        problems: inout ConfigurationProblems
    ) {
        let used = Set(configuration.routes.compactMap(\.rateLimit?.name))
        for limit in defined where !used.contains(limit.name) {
            let others = configuration.rateLimits.map(\.name).filter { $0 != limit.name }
            let hint = Suggestion.closest(to: limit.name, among: others).map { "; did you mean \($0)?" } ?? " (name it in a route's rate_limit:, or remove it)"
            problems.record(
                ConfigurationError(file: limit.entry.file, line: limit.keyLine, key: limit.entry.path, message: "is used by no route\(hint)")
            )
        }
    }

    /// `{capacity, period_seconds, shadow}`.
    static func rateLimit(_ value: ConfigValue, name: String) throws(ConfigurationError) -> RateLimit {
        let mapping = try value.mapping(Self.rateLimitKeys)
        let capacity = try mapping.required("capacity").number(in: ConfigurationBounds.rateLimitCapacity)
        let period = try mapping.required("period_seconds").number(in: ConfigurationBounds.rateLimitPeriodSeconds)
        let shadow = try mapping.read("shadow") { value throws(ConfigurationError) in try value.boolean() } ?? false
        return RateLimit(name: name, capacity: capacity, period: period, shadow: shadow)
    }
}
