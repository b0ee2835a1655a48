public import GatewayConfig
public import Logging
import RateLimiting

/// What differs between the running configuration and a newly loaded one, split by whether a reload can apply it:
/// routes, rate limits, the log level and access log, trusted proxies, the OpenAI settings and key, the proxy's
/// identity headers and assertion keys, and the idempotency settings change live; what the listeners, the stores, the
/// job workers and the certificate refreshers were built with needs a restart, and a reload leaves it as it was (``applicable``).
public struct ConfigurationChanges: Sendable, Equatable {
    /// One changed setting a reload applies: its config-file key and what to log about it (never a secret value).
    public struct Change: Sendable, Equatable {
        public var key: String
        public var details: [String: [String]]
    }

    public var applied: [Change] = []
    /// The keys that changed but need a restart.
    public var needsRestart: [String] = []

    public var isEmpty: Bool { self.applied.isEmpty && self.needsRestart.isEmpty }

    public init(from old: GatewayConfiguration, to new: GatewayConfiguration) {
        self.live(old, new, "log_level", \.logLevel)
        self.live(old, new, "access_log", \.accessLog)
        self.routes(old.routes, new.routes)
        self.rateLimits(old.rateLimits, new.rateLimits)
        self.live(old, new, "trusted_proxies", \.trustedProxies)
        self.live(old, new, "openai.api_key", \.openAIAPIKey)
        self.live(old, new, "openai.base_url", \.openAIBaseURL)
        self.live(old, new, "openai.timeout_seconds", \.openAITimeoutSeconds)
        self.live(old, new, "openai.models", \.models)
        self.live(old, new, "proxy.identity_headers", \.proxy.identityHeaders)
        self.live(old, new, "proxy.identity_assertion.header", \.proxy.assertionHeader)
        self.live(old, new, "proxy.identity_assertion.secret", \.proxy.assertionSecret)
        self.live(old, new, "proxy.identity_assertion.accept", \.proxy.acceptAssertions)
        self.live(old, new, "proxy.identity_assertion.max_age_seconds", \.proxy.assertionMaxAgeSeconds)
        self.live(old, new, "admin.token_file", \.adminToken)
        self.live(old, new, "idempotency", \.idempotency)

        self.restart(old, new, "listen.host", \.host)
        self.restart(old, new, "listen.port", \.port)
        self.restart(old, new, "admin", \.admin)
        self.restart(old, new, "env", \.mode)
        self.restart(old, new, "firebase.project_id", \.firebaseProjectID)
        self.restart(old, new, "firebase.certs_url", \.firebaseCertsURL)
        self.restart(old, new, "firebase.clock_skew_seconds", \.clockSkewSeconds)
        self.restart(old, new, "firebase.token_cache_size", \.tokenCacheSize)
        self.restart(old, new, "firebase.project_number", \.appCheck.projectNumber)
        self.restart(old, new, "firebase.app_check", \.appCheck)
        self.restart(old, new, "dev.certs_dir", \.devCertsDirectory)
        self.restart(old, new, "dev.allow_non_loopback", \.devAllowNonLoopback)
        self.restart(old, new, "auth_failure_limit", \.authFailureLimit)
        self.restart(old, new, "redis.url", \.redisURL)
        self.restart(old, new, "redis.cluster", \.redisCluster)
        self.restart(old, new, "redis.pool_size", \.redisPoolSize)
        self.restart(old, new, "redis.timeout_ms", \.redisTimeoutMilliseconds)
        self.restart(old, new, "redis.failure_policy", \.rateLimitFailurePolicy)
        self.restart(old, new, "media_dir", \.mediaDirectory)
        self.restart(old, new, "media", \.media)
        self.restart(old, new, "server", \.server)
        self.restart(old, new, "proxy.connect_timeout_seconds", \.proxy.connectTimeoutSeconds)
        self.restart(old, new, "proxy.max_connections_per_upstream", \.proxy.maxConnectionsPerUpstream)
        self.restart(old, new, "proxy.idle_timeout_seconds", \.proxy.idleTimeoutSeconds)
        self.restart(old, new, "firebase.revocation", \.revocation)
        self.restart(old, new, "google.credentials_file", \.googleCredentialsFile)
        self.restart(old, new, "jobs", \.jobs)
    }

    /// `new` with every setting that needs a restart taken from `running`: what a reload puts in place.
    public static func applicable(_ new: GatewayConfiguration, running: GatewayConfiguration) -> GatewayConfiguration {
        var result = new
        result.host = running.host
        result.port = running.port
        result.admin = running.admin
        result.mode = running.mode
        result.firebaseProjectID = running.firebaseProjectID
        result.firebaseCertsURL = running.firebaseCertsURL
        result.clockSkewSeconds = running.clockSkewSeconds
        result.tokenCacheSize = running.tokenCacheSize
        result.appCheck = running.appCheck
        result.devCertsDirectory = running.devCertsDirectory
        result.devAllowNonLoopback = running.devAllowNonLoopback
        result.jobs = running.jobs
        result.authFailureLimit = running.authFailureLimit
        result.redisURL = running.redisURL
        result.redisCluster = running.redisCluster
        result.redisPoolSize = running.redisPoolSize
        result.redisTimeoutMilliseconds = running.redisTimeoutMilliseconds
        result.rateLimitFailurePolicy = running.rateLimitFailurePolicy
        result.mediaDirectory = running.mediaDirectory
        result.media = running.media
        result.server = running.server
        result.proxy.connectTimeoutSeconds = running.proxy.connectTimeoutSeconds
        result.proxy.maxConnectionsPerUpstream = running.proxy.maxConnectionsPerUpstream
        result.proxy.idleTimeoutSeconds = running.proxy.idleTimeoutSeconds
        result.revocation = running.revocation
        result.googleCredentialsFile = running.googleCredentialsFile
        return result
    }

    /// One log line's fields per applied change.
    public static func metadata(_ change: Change) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["key": .string(change.key)]
        for (name, values) in change.details { metadata[name] = .array(values.map { .string($0) }) }
        return metadata
    }

    private mutating func live<Value: Equatable>(_ old: GatewayConfiguration, _ new: GatewayConfiguration, _ key: String, _ path: KeyPath<GatewayConfiguration, Value>) {
        if old[keyPath: path] != new[keyPath: path] { self.applied.append(Change(key: key, details: [:])) }
    }

    private mutating func restart<Value: Equatable>(_ old: GatewayConfiguration, _ new: GatewayConfiguration, _ key: String, _ path: KeyPath<GatewayConfiguration, Value>) {
        if old[keyPath: path] != new[keyPath: path] { self.needsRestart.append(key) }
    }

    /// Routes by name: added, removed, and changed (path, target or policy).
    private mutating func routes(_ old: [RouteConfiguration], _ new: [RouteConfiguration]) {
        let (added, removed, changed) = Self.compare(old, new, name: \.name)
        guard !(added.isEmpty && removed.isEmpty && changed.isEmpty) else { return }
        self.applied.append(Change(key: "routes", details: ["added": added, "removed": removed, "changed": changed]))
    }

    private mutating func rateLimits(_ old: [RateLimit], _ new: [RateLimit]) {
        let (added, removed, changed) = Self.compare(old, new, name: \.name)
        guard !(added.isEmpty && removed.isEmpty && changed.isEmpty) else { return }
        self.applied.append(Change(key: "rate_limits", details: ["added": added, "removed": removed, "changed": changed]))
    }

    private static func compare<Item: Equatable>(_ old: [Item], _ new: [Item], name: KeyPath<Item, String>) -> (added: [String], removed: [String], changed: [String]) {
        let before = Dictionary(old.map { ($0[keyPath: name], $0) }, uniquingKeysWith: { first, _ in first })
        let after = Dictionary(new.map { ($0[keyPath: name], $0) }, uniquingKeysWith: { first, _ in first })
        let added = new.map { $0[keyPath: name] }.filter { before[$0] == nil }
        let removed = old.map { $0[keyPath: name] }.filter { after[$0] == nil }
        let changed = new.compactMap { item -> String? in
            let key = item[keyPath: name]
            guard let previous = before[key], previous != item else { return nil }
            return key
        }
        return (added, removed, changed)
    }
}
