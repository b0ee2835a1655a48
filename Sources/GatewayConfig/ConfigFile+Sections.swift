import GoogleAuth
import RateLimiting
import StoryFunctions
import Yams

/// The sections of a config file with plain keys: `listen`, `firebase`, `dev`, `openai`, `redis`.
extension ConfigFile {
    static func applyListen(_ value: ConfigValue, to configuration: inout GatewayConfiguration) throws(ConfigurationError) {
        let listen = try value.mapping(["host", "port"])
        try listen.assign(&configuration.host, "host") { value throws(ConfigurationError) in
            try value.string("a host name or IP address", isValid: GatewayConfiguration.isValidHost)
        }
        try listen.assign(&configuration.port, "port") { value throws(ConfigurationError) in try value.integer(in: ConfigurationBounds.port) }
    }

    static func applyAdmin(_ value: ConfigValue, to configuration: inout GatewayConfiguration) throws(ConfigurationError) {
        let admin = try value.mapping(["host", "port", "token_file"])
        try Self.applyAdminToken(admin, to: &configuration)
        var host = configuration.admin?.host ?? AdminListener.defaultHost
        var port = configuration.admin?.port
        try admin.assign(&host, "host") { value throws(ConfigurationError) in
            try value.string("a host name or IP address", isValid: GatewayConfiguration.isValidHost)
        }
        try admin.assign(&port, "port") { value throws(ConfigurationError) in
            if value.node.scalar?.string == "off" { return nil }
            do {
                return try value.integer(in: ConfigurationBounds.port)
            } catch {
                throw value.error("must be a whole number from 0 to 65535, or off, not \(value.shown)")
            }
        }
        configuration.admin = port.map { AdminListener(host: host, port: $0) }
    }

    static func applyFirebase(_ value: ConfigValue, to configuration: inout GatewayConfiguration) throws(ConfigurationError) {
        let firebase = try value.mapping([
            "project_id", "project_number", "certs_url", "clock_skew_seconds", "token_cache_size", "identity_toolkit_url", "revocation", "app_check",
        ])
        try firebase.assign(&configuration.firebaseProjectID, "project_id") { value throws(ConfigurationError) in
            value.isNull ? nil : try value.string("a Firebase project id (lowercase letters, digits, hyphens)", isValid: GatewayConfiguration.isValidProjectID)
        }
        try firebase.assign(&configuration.appCheck.projectNumber, "project_number") { value throws(ConfigurationError) in
            value.isNull ? nil : try value.string("a Firebase project number (digits)", isValid: AppCheckSettings.isProjectNumber)
        }
        if let appCheck = firebase["app_check"] { try Self.applyAppCheck(appCheck, to: &configuration) }
        try firebase.assign(&configuration.firebaseCertsURL, "certs_url") { value throws(ConfigurationError) in
            try value.url("an https URL (http only to a loopback address)", isValid: GatewayConfiguration.isAllowedCertsURL)
        }
        try firebase.assign(&configuration.clockSkewSeconds, "clock_skew_seconds") { value throws(ConfigurationError) in
            try value.integer(in: ConfigurationBounds.clockSkewSeconds)
        }
        try firebase.assign(&configuration.tokenCacheSize, "token_cache_size") { value throws(ConfigurationError) in
            try value.integer(in: ConfigurationBounds.tokenCacheSize)
        }
        try firebase.assign(&configuration.revocation.identityToolkitURL, "identity_toolkit_url") { value throws(ConfigurationError) in
            try value.url("an https URL (http only to a loopback address)", isValid: GoogleEndpointURL.isAllowed)
        }
        if let revocation = firebase["revocation"] { try Self.applyRevocation(revocation, to: &configuration) }
    }

    static func applyDev(_ value: ConfigValue, to configuration: inout GatewayConfiguration) throws(ConfigurationError) {
        let dev = try value.mapping(["certs_dir", "allow_non_loopback"])
        try dev.assign(&configuration.devCertsDirectory, "certs_dir") { value throws(ConfigurationError) in
            try value.string("a directory path", isValid: { !$0.isEmpty })
        }
        try dev.assign(&configuration.devAllowNonLoopback, "allow_non_loopback") { value throws(ConfigurationError) in try value.boolean() }
    }

    static func applyOpenAI(_ value: ConfigValue, to configuration: inout GatewayConfiguration) throws(ConfigurationError) {
        let openAI = try value.mapping(["base_url", "api_key", "api_key_file", "timeout_seconds", "models"])
        try openAI.assign(&configuration.openAIBaseURL, "base_url") { value throws(ConfigurationError) in
            try value.url("an https URL (http only to a loopback address)", isValid: GatewayConfiguration.isAllowedCertsURL)
        }
        if let inline = openAI["api_key"] {
            try inline.redactionPlaceholder(instead: "put the key in the OPENAI_API_KEY environment variable, or in a file named by openai.api_key_file")
        }
        try openAI.assign(&configuration.openAIAPIKey, "api_key_file") { value throws(ConfigurationError) in try value.secretFile() }
        try openAI.assign(&configuration.openAITimeoutSeconds, "timeout_seconds") { value throws(ConfigurationError) in
            value.isNull ? nil : try value.integer(in: ConfigurationBounds.openAITimeoutSeconds)
        }
        guard let modelsValue = openAI["models"] else { return }
        let models = try modelsValue.mapping(["text", "speech", "voice", "moderation", "image"])
        let read = { (value: ConfigValue) throws(ConfigurationError) -> String in try value.string("a model name", isValid: GatewayConfiguration.isModelName) }
        try models.assign(&configuration.models.text, "text", read)
        try models.assign(&configuration.models.speech, "speech", read)
        try models.assign(&configuration.models.voice, "voice", read)
        try models.assign(&configuration.models.moderation, "moderation", read)
        try models.assign(&configuration.models.image, "image", read)
    }

    static func applyRedis(_ value: ConfigValue, to configuration: inout GatewayConfiguration) throws(ConfigurationError) {
        let redis = try value.mapping(["url", "cluster", "pool_size", "timeout_ms", "failure_policy"])
        try redis.assign(&configuration.redisURL, "url") { value throws(ConfigurationError) in
            value.isNull
                ? nil
                : try value.string(
                    "redis://[:password@]host:port[/db], or with cluster: true redis://[:password@]host:port[,host:port...]",
                    secret: true, isValid: GatewayConfiguration.isRedisURL
                )
        }
        try redis.assign(&configuration.redisCluster, "cluster") { value throws(ConfigurationError) in try value.boolean() }
        try redis.assign(&configuration.redisPoolSize, "pool_size") { value throws(ConfigurationError) in try value.integer(in: ConfigurationBounds.redisPoolSize) }
        try redis.assign(&configuration.redisTimeoutMilliseconds, "timeout_ms") { value throws(ConfigurationError) in
            try value.integer(in: ConfigurationBounds.redisTimeoutMilliseconds)
        }
        try redis.assign(&configuration.rateLimitFailurePolicy, "failure_policy") { value throws(ConfigurationError) in
            try value.choice(FailoverRateLimitStore.Policy.self)
        }
    }
}

extension ConfigValue {
    /// The placeholders `check-config` prints in place of a secret, accepted so its output loads back.
    static let redactionPlaceholders = ["<redacted>", "unset"]

    /// A URL that `isValid` accepts; one that carries user info is not echoed (it may hold a password).
    func url(_ expected: String, isValid: (String) -> Bool) throws(ConfigurationError) -> String {
        let text = try self.string()
        return try self.string(expected, secret: text.contains("@"), isValid: isValid)
    }

    /// A secret written into the file itself is refused (without echoing it); only a redaction placeholder or null
    /// passes, and means nothing.
    func redactionPlaceholder(instead advice: String) throws(ConfigurationError) {
        if self.isNull { return }
        if let text = self.node.scalar?.string, Self.redactionPlaceholders.contains(text) { return }
        throw self.error("a secret is never written in the config file (the value is not shown): \(advice)")
    }

    /// The secret in the file this value names (read now); nil for `null`.
    func secretFile(minimumBytes: Int = 1) throws(ConfigurationError) -> Secret? {
        if self.isNull { return nil }
        let path = try self.string("a file path", isValid: { !$0.isEmpty })
        do {
            return try Secret.read(path: path, minimumBytes: minimumBytes)
        } catch {
            throw self.error(error.message)
        }
    }
}
