import RateLimiting
import StoryFunctions

/// The environment variables of `GatewayConfiguration`'s table, applied over the current values.
extension GatewayConfiguration {
    /// The defaults with the variables applied, then validated; a malformed value or a missing required one throws
    /// an error naming the variable. (No config file: see `load(configPath:environment:overrides:)` for one.)
    public init(environment: [String: String]) throws(ConfigurationError) {
        try self.init(yaml: nil, environment: environment)
    }

    /// Overwrites every value whose variable is set; an unset (or empty) variable keeps the current value, so the
    /// environment goes over the config file. Does not validate: call `validate()` once everything is applied.
    ///
    /// - Throws: every malformed variable, not only the first.
    public mutating func apply(environment: [String: String]) throws(ConfigurationError) {
        let reader = EnvironmentReader(environment)
        var problems = ConfigurationProblems()
        problems.check { self.host = try reader.string("HOST", default: self.host, expected: Expected.host, validate: Self.isValidHost) }
        problems.check { self.port = try reader.integer("PORT", default: self.port, in: ConfigurationBounds.port) }
        problems.check { self.admin = try reader.adminListener(self.admin) }
        problems.check { self.mode = try reader.choice("ENV", default: self.mode) }
        problems.check { self.firebaseProjectID = try reader.optionalString("FIREBASE_PROJECT_ID", expected: Expected.projectID, validate: Self.isValidProjectID) ?? self.firebaseProjectID }
        problems.check { self.firebaseCertsURL = try reader.url("FIREBASE_CERTS_URL", default: self.firebaseCertsURL, expected: Expected.certsURL, validate: Self.isAllowedCertsURL) }
        problems.check { self.clockSkewSeconds = try reader.integer("CLOCK_SKEW_SECONDS", default: self.clockSkewSeconds, in: ConfigurationBounds.clockSkewSeconds) }
        problems.check { self.tokenCacheSize = try reader.integer("TOKEN_CACHE_SIZE", default: self.tokenCacheSize, in: ConfigurationBounds.tokenCacheSize) }
        problems.check { self.devCertsDirectory = try reader.string("DEV_CERTS_DIR", default: self.devCertsDirectory, expected: Expected.directory, validate: { !$0.isEmpty }) }
        problems.check { self.devAllowNonLoopback = try reader.boolean("DEV_ALLOW_NON_LOOPBACK", default: self.devAllowNonLoopback) }
        problems.check { self.logLevel = try reader.choice("LOG_LEVEL", default: self.logLevel) }
        problems.check { self.accessLog = try reader.boolean("ACCESS_LOG", default: self.accessLog) }
        problems.check { self.rateLimits = try reader.rateLimits(self.rateLimits) }
        problems.check { self.authFailureLimit = try reader.optionalRateLimit("AUTH_FAILURE_LIMIT", name: "auth-failures", default: self.authFailureLimit) }
        if reader.raw("TRUSTED_PROXIES") != nil {
            problems.check {
                self.trustedProxies = try reader.list("TRUSTED_PROXIES").map { entry throws(ConfigurationError) in
                    guard let range = IPAddressRange(entry) else {
                        throw ConfigurationError(variable: "TRUSTED_PROXIES", message: "has an entry that is not an IP address or CIDR block: '\(entry.prefix(60))'")
                    }
                    return range
                }
            }
        }
        // Checked against REDIS_CLUSTER by `validateRedis()`, with the form expected.
        problems.check { self.redisURL = try reader.optionalString("REDIS_URL", mayHoldSecret: true, expected: Self.redisURLForms, validate: { _ in true }) ?? self.redisURL }
        problems.check { self.redisCluster = try reader.boolean("REDIS_CLUSTER", default: self.redisCluster) }
        problems.check { self.redisPoolSize = try reader.integer("REDIS_POOL_SIZE", default: self.redisPoolSize, in: ConfigurationBounds.redisPoolSize) }
        problems.check {
            self.redisTimeoutMilliseconds = try reader.integer(
                "REDIS_TIMEOUT_MS", default: self.redisTimeoutMilliseconds, in: ConfigurationBounds.redisTimeoutMilliseconds
            )
        }
        problems.check { self.rateLimitFailurePolicy = try reader.choice("RATE_LIMIT_FAILURE_POLICY", default: self.rateLimitFailurePolicy) }
        self.applyOpenAI(reader, problems: &problems)
        self.applyAppCheck(reader, problems: &problems)
        problems.check { self.mediaDirectory = try reader.string("MEDIA_DIR", default: self.mediaDirectory, expected: Expected.directory, validate: { !$0.isEmpty }) }
        problems.check { try self.applyMedia(reader) }
        problems.check { self.server.maxBodyBytes = try reader.integer("MAX_BODY_BYTES", default: self.server.maxBodyBytes, in: ConfigurationBounds.maxBodyBytes) }
        problems.check { self.server.maxConnections = try reader.integer("MAX_CONNECTIONS", default: self.server.maxConnections, in: ConfigurationBounds.maxConnections) }
        problems.check {
            self.server.shutdownGraceSeconds = try reader.seconds(
                "SHUTDOWN_GRACE_SECONDS", default: self.server.shutdownGraceSeconds, in: ConfigurationBounds.shutdownGraceSeconds
            )
        }
        for removed in ConfigurationReference.removed where reader.raw(removed.variable) != nil {
            self.server.removedSettings.append(removed.variable)
        }
        problems.check {
            self.proxy.assertionSecret = try reader.secretFile(
                "IDENTITY_ASSERTION_SECRET_FILE", minimumBytes: ConfigurationBounds.assertionSecretMinimumBytes
            ) ?? self.proxy.assertionSecret
        }
        problems.check { self.proxy.acceptAssertions = try reader.boolean("IDENTITY_ASSERTION_ACCEPT", default: self.proxy.acceptAssertions) }
        self.applyRevocation(reader, problems: &problems)
        self.applyGenerations(reader, problems: &problems)
        try problems.throwIfAny()
    }

    private mutating func applyOpenAI(_ reader: EnvironmentReader, problems: inout ConfigurationProblems) {
        problems.check { self.openAIAPIKey = try reader.secret("OPENAI_API_KEY", fileVariable: "OPENAI_API_KEY_FILE") ?? self.openAIAPIKey }
        problems.check { self.openAIBaseURL = try reader.url("OPENAI_BASE_URL", default: self.openAIBaseURL, expected: Expected.openAIBaseURL, validate: Self.isAllowedCertsURL) }
        problems.check { self.models.text = try reader.string("OPENAI_MODEL_TEXT", default: self.models.text, expected: Expected.modelName, validate: Self.isModelName) }
        problems.check { self.models.speech = try reader.string("OPENAI_MODEL_SPEECH", default: self.models.speech, expected: Expected.modelName, validate: Self.isModelName) }
        problems.check { self.models.voice = try reader.string("OPENAI_SPEECH_VOICE", default: self.models.voice, expected: Expected.modelName, validate: Self.isModelName) }
        problems.check { self.models.moderation = try reader.string("OPENAI_MODEL_MODERATION", default: self.models.moderation, expected: Expected.modelName, validate: Self.isModelName) }
        problems.check { self.models.image = try reader.string("OPENAI_MODEL_IMAGE", default: self.models.image, expected: Expected.modelName, validate: Self.isModelName) }
        if reader.raw("OPENAI_TIMEOUT_SECONDS") != nil {
            problems.check { self.openAITimeoutSeconds = try reader.integer("OPENAI_TIMEOUT_SECONDS", default: 60, in: ConfigurationBounds.openAITimeoutSeconds) }
        }
    }
}

/// What a valid value of each free-form variable looks like, completing "NAME must …".
enum Expected {
    static let host = "be a host name or IP address (letters, digits, '.', '-' and ':'), such as 127.0.0.1 or ::1"
    static let projectID = "be a Firebase project id (lowercase letters, digits and hyphens), such as my-app-1234"
    static let certsURL =
        "be an absolute https URL such as \(GatewayConfiguration.googleCertsURL) (plain http only to a loopback address, no user info)"
    static let openAIBaseURL =
        "be an absolute https URL such as https://api.openai.com/v1 (plain http only to a loopback address, no user info)"
    static let modelName = "be a model name (letters, digits, '-', '.', '_' and ':'), such as gpt-5"
    static let directory = "be a directory path"
    static let filePath = "be a file path"
    static let identityToolkitURL =
        "be an absolute https URL such as \(RevocationConfiguration.defaultIdentityToolkitURL) (plain http only to a loopback address, no user info)"
    static let s3Bucket = "be a bucket name (3 to 63 lowercase letters, digits, dots, hyphens), such as storygate-media"
    static let s3Region = "be a region (letters, digits, hyphens), such as us-east-1 (auto for Cloudflare R2)"
    static let s3Prefix = "be a prefix ending in / (letters, digits, - _ . /), such as media/"
}
