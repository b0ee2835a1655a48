import Yams

/// The variables, file keys, rules and `check-config` output of `IdempotencySettings` and `JobSettings`.
extension GatewayConfiguration {
    mutating func applyGenerations(_ reader: EnvironmentReader, problems: inout ConfigurationProblems) {
        problems.check {
            self.idempotency.ttlSeconds = try reader.integer(
                "IDEMPOTENCY_TTL_SECONDS", default: self.idempotency.ttlSeconds, in: ConfigurationBounds.idempotencyTTLSeconds
            )
        }
        problems.check { self.idempotency.failurePolicy = try reader.choice("IDEMPOTENCY_FAILURE_POLICY", default: self.idempotency.failurePolicy) }
        problems.check { self.jobs.workers = try reader.integer("JOB_WORKERS", default: self.jobs.workers, in: ConfigurationBounds.jobWorkers) }
        problems.check { self.jobs.queueMax = try reader.integer("JOB_QUEUE_MAX", default: self.jobs.queueMax, in: ConfigurationBounds.jobQueueMax) }
        problems.check {
            self.jobs.retentionSeconds = try reader.integer(
                "JOB_RETENTION_SECONDS", default: self.jobs.retentionSeconds, in: ConfigurationBounds.jobRetentionSeconds
            )
        }
        problems.check {
            self.jobs.leaseSeconds = try reader.integer("JOB_LEASE_SECONDS", default: self.jobs.leaseSeconds, in: ConfigurationBounds.jobLeaseSeconds)
        }
    }

    /// Only the functions and upstream routes with `auth: required` read `Idempotency-Key`. The file's reader
    /// refuses the others at their line; this catches a table built in code.
    func validateIdempotencyRoutes() throws(ConfigurationError) {
        var problems = ConfigurationProblems()
        for route in self.routes where !route.target.takesIdempotencyKeys && route.idempotencyMode != .off {
            problems.record(
                ConfigurationError(
                    variable: "routes",
                    message: "route \(route.name) has idempotency: \(route.idempotencyMode.rawValue), but idempotency applies to the functions and upstream routes (leave it out, or set it to off)"
                )
            )
        }
        for route in self.routes where route.idempotencyMode != .off && route.auth != .required {
            guard case .upstream = route.target else { continue }
            problems.record(
                ConfigurationError(
                    variable: "routes",
                    message: "route \(route.name) keeps answers per user (idempotency: \(route.idempotencyMode.rawValue)), so it needs auth: required"
                )
            )
        }
        try problems.throwIfAny()
    }

    var idempotencyNode: Node {
        typealias Y = YAMLNode
        return Y.mapping([
            ("ttl_seconds", Y.int(self.idempotency.ttlSeconds)),
            ("failure_policy", Y.string(self.idempotency.failurePolicy.rawValue)),
        ])
    }

    var jobsNode: Node {
        typealias Y = YAMLNode
        return Y.mapping([
            ("workers", Y.int(self.jobs.workers)),
            ("queue_max", Y.int(self.jobs.queueMax)),
            ("retention_seconds", Y.int(self.jobs.retentionSeconds)),
            ("lease_seconds", Y.int(self.jobs.leaseSeconds)),
        ])
    }
}

extension ConfigFile {
    static func applyIdempotency(_ value: ConfigValue, to settings: inout IdempotencySettings) throws(ConfigurationError) {
        let idempotency = try value.mapping(["ttl_seconds", "failure_policy"])
        try idempotency.assign(&settings.ttlSeconds, "ttl_seconds") { value throws(ConfigurationError) in
            try value.integer(in: ConfigurationBounds.idempotencyTTLSeconds)
        }
        try idempotency.assign(&settings.failurePolicy, "failure_policy") { value throws(ConfigurationError) in
            try value.choice(IdempotencyFailurePolicy.self)
        }
    }

    static func applyJobs(_ value: ConfigValue, to settings: inout JobSettings) throws(ConfigurationError) {
        let jobs = try value.mapping(["workers", "queue_max", "retention_seconds", "lease_seconds"])
        try jobs.assign(&settings.workers, "workers") { value throws(ConfigurationError) in try value.integer(in: ConfigurationBounds.jobWorkers) }
        try jobs.assign(&settings.queueMax, "queue_max") { value throws(ConfigurationError) in try value.integer(in: ConfigurationBounds.jobQueueMax) }
        try jobs.assign(&settings.retentionSeconds, "retention_seconds") { value throws(ConfigurationError) in
            try value.integer(in: ConfigurationBounds.jobRetentionSeconds)
        }
        try jobs.assign(&settings.leaseSeconds, "lease_seconds") { value throws(ConfigurationError) in
            try value.integer(in: ConfigurationBounds.jobLeaseSeconds)
        }
    }
}
