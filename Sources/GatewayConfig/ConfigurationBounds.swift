import RateLimiting

/// The accepted range of every numeric setting, shared by the config file and the environment variables.
enum ConfigurationBounds {
    static let port = 0...65535
    static let mediaURLTTLSeconds = 1...604_800
    static let clockSkewSeconds = 0...GatewayConfiguration.maximumClockSkewSeconds
    static let tokenCacheSize = 0...10_000_000
    static let redisPoolSize = 1...64
    static let redisTimeoutMilliseconds = 1...10_000
    static let openAITimeoutSeconds = 1...600
    static let maxHeaderBytes = 1024...1_048_576
    static let maxHeaderCount = 1...1000
    /// Up to 1 GiB: uploads through an upstream route may be large; the built-in functions set their own smaller limits.
    static let maxBodyBytes = 0...1_073_741_824
    static let timeoutSeconds: ClosedRange<Double> = 0.1...3600
    static let shutdownGraceSeconds: ClosedRange<Double> = 0...3600
    static let maxConnections = 1...1_000_000
    static let connectTimeoutSeconds: ClosedRange<Double> = 0.1...600
    static let maxConnectionsPerUpstream = 1...10_000
    static let rateLimitCapacity: ClosedRange<Double> = 0.001...RateLimit.maximumCapacity
    static let rateLimitPeriodSeconds: ClosedRange<Double> = 0.001...RateLimit.maximumPeriod
    static let routeCost: ClosedRange<Double> = 0.001...1_000_000_000
    /// The identity-assertion HMAC key: at least 256 bits.
    static let assertionSecretMinimumBytes = 32
    static let assertionMaxAgeSeconds: ClosedRange<Double> = 1...3600
    /// How late a revocation may take effect: from one second to a day.
    static let revocationMaxAgeSeconds = 1...86_400
    /// The admin route's bearer secret: at least 128 bits.
    static let adminTokenMinimumBytes = 16
    /// How long an answer under an `Idempotency-Key` is kept: from a second to 30 days.
    static let idempotencyTTLSeconds = 1...2_592_000
    /// 0: a replica that only creates jobs.
    static let jobWorkers = 0...256
    static let jobQueueMax = 1...1_000_000
    /// From a minute (a client must have time to fetch the result) to 30 days.
    static let jobRetentionSeconds = 60...2_592_000
    static let jobLeaseSeconds = 5...3600
}
