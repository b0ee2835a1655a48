import RateLimiting
import Yams

/// `rate_limits` and `auth_failure_limit`.
extension ConfigFile {
    static let rateLimitKeys = ["capacity", "period_seconds", "shadow"]

    /// A limit named like a default one replaces it; a new name adds a limit.
    static func applyRateLimits(_ top: ConfigMapping, to configuration: inout GatewayConfiguration) throws(ConfigurationError) {
        if let limitsValue = top["rate_limits"] {
            for entry in try limitsValue.mapping(nil).entries {
                guard GatewayConfiguration.isRateLimitName(entry.key) else {
                    throw ConfigurationError(
                        file: entry.value.file, line: entry.keyLine, key: entry.value.path,
                        message: "a limit name is 1 to 64 lowercase letters, digits and '-', starting with a letter (it names RATE_LIMIT_<NAME> and appears in the RateLimit headers)"
                    )
                }
                let limit = try Self.rateLimit(entry.value, name: entry.key)
                if let index = configuration.rateLimits.firstIndex(where: { $0.name == entry.key }) {
                    configuration.rateLimits[index] = limit
                } else {
                    configuration.rateLimits.append(limit)
                }
            }
        }
        if let failureValue = top["auth_failure_limit"] {
            if failureValue.tagName == .bool, (try? failureValue.boolean()) == false {
                configuration.authFailureLimit = nil
            } else if failureValue.node.mapping != nil {
                configuration.authFailureLimit = try Self.rateLimit(failureValue, name: "auth-failures")
            } else {
                throw failureValue.error("must be {capacity, period_seconds} or off, not \(failureValue.shown)")
            }
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
