public import Logging
public import RateLimiting
public import StoryFunctions

/// Everything `storygate serve` is configured with. Every key, its type and its default:
///
/// | variable | type | default |
/// |---|---|---|
/// | `HOST` | address to bind | `127.0.0.1` |
/// | `PORT` | 0...65535 (0: any free port) | `8080` |
/// | `ENV` | `prod` or `dev` | `prod` |
/// | `FIREBASE_PROJECT_ID` | Firebase project id | none; required in prod |
/// | `FIREBASE_CERTS_URL` | https URL (http only to loopback) | Google's securetoken x509 endpoint |
/// | `CLOCK_SKEW_SECONDS` | 0...60 | `0` (the Firebase Admin SDK's default) |
/// | `TOKEN_CACHE_SIZE` | 0...10000000 verified tokens (0: off) | `10000` |
/// | `DEV_CERTS_DIR` | directory with `certs.json` (dev only) | `certs/dev` |
/// | `DEV_ALLOW_NON_LOOPBACK` | `true`/`false`: let dev mode bind beyond loopback | `false` |
/// | `LOG_LEVEL` | trace, debug, info, notice, warning, error, critical | `info` |
/// | `RATE_LIMIT_<NAME>` | `<count>/<seconds>`, optionally followed by ` shadow` (NAME: the limit name upper-cased, `-` → `_`) | the five defaults of `RateLimit.defaults` |
/// | `RATE_LIMIT_SHADOW` | `all` or a comma list of limit names to count and report but never reject | none |
/// | `AUTH_FAILURE_LIMIT` | `<count>/<seconds>` per client address for unauthenticated and failed-auth requests, or `off` | `20/60` |
/// | `TRUSTED_PROXIES` | comma list of IPs/CIDRs whose `X-Forwarded-For` is believed | none |
/// | `REDIS_URL` | `redis://[:password@]host:port[/db]`: share rate limits across gateways | none (in memory) |
/// | `REDIS_POOL_SIZE` | 1...64 connections | `4` |
/// | `REDIS_TIMEOUT_MS` | 1...10000 per check | `50` |
/// | `RATE_LIMIT_FAILURE_POLICY` | `open` (fall back to a local bucket) or `closed` (503) when Redis fails | `open` |
/// | `OPENAI_API_KEY` | the OpenAI key (or `OPENAI_API_KEY_FILE`: a file holding it) | none: offline provider in dev, refused in prod |
/// | `OPENAI_BASE_URL` | https URL (http only to loopback) | `https://api.openai.com/v1` |
/// | `OPENAI_MODEL_TEXT`, `OPENAI_MODEL_SPEECH`, `OPENAI_SPEECH_VOICE`, `OPENAI_MODEL_MODERATION`, `OPENAI_MODEL_IMAGE` | model names | `gpt-5`, `gpt-4o-mini-tts`, `coral`, `omni-moderation-latest`, `gpt-image-2.5-flare` |
/// | `OPENAI_TIMEOUT_SECONDS` | 1...600: one deadline for every OpenAI call, retries included | per call kind: chat 120, speech 60, images 120, moderation 15 |
/// | `MEDIA_DIR` | where generated audio and images are stored | `./data/media` |
public struct GatewayConfiguration: Sendable, Equatable {
    public enum Mode: String, Sendable, Equatable {
        case prod, dev
    }

    /// The project id dev mode trusts with the dev certificate in `certs/dev/` (never in prod).
    public static let devProjectID = "storygate-dev"
    public static let googleCertsURL = "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
    public static let maximumClockSkewSeconds = 60

    public var host = "127.0.0.1"
    public var port = 8080
    public var mode = Mode.prod
    public var firebaseProjectID: String?
    public var firebaseCertsURL = Self.googleCertsURL
    public var clockSkewSeconds = 0
    public var tokenCacheSize = 10_000
    public var devCertsDirectory = "certs/dev"
    public var devAllowNonLoopback = false
    public var logLevel = Logger.Level.info
    /// Per-user limits by name; routes refer to them.
    public var rateLimits: [RateLimit] = RateLimit.defaults
    /// The per-client-address limit on unauthenticated and failed-auth requests (nil: off).
    public var authFailureLimit: RateLimit? = RateLimit(name: "auth-failures", capacity: 20, period: 60)
    public var trustedProxies: [IPAddressRange] = []
    public var redisURL: String?
    public var redisPoolSize = 4
    public var redisTimeoutMilliseconds = 50
    public var rateLimitFailurePolicy = FailoverRateLimitStore.Policy.failOpen
    /// The OpenAI key; nil in dev selects the offline provider.
    public var openAIAPIKey: Secret?
    public var openAIBaseURL = "https://api.openai.com/v1"
    /// One deadline for every OpenAI call (retries included); nil keeps the per-kind defaults.
    public var openAITimeoutSeconds: Int?
    public var models = AIModels()
    public var mediaDirectory = "./data/media"
    /// The route table; the default is the built-in one (`RouteConfiguration.defaults`).
    public var routes: [RouteConfiguration] = RouteConfiguration.defaults
    public var server = ServerLimits()
    public var proxy = ProxySettings()
    /// One JSON line per request on standard error (`ACCESS_LOG`).
    public var accessLog = true

    public init() {}

    /// Reads the variables above; a malformed value or a missing required one throws an error naming the variable.
    public init(environment: [String: String]) throws(ConfigurationError) {
        let reader = EnvironmentReader(environment)
        self.host = try reader.string("HOST", default: self.host, validate: Self.isValidHost)
        self.port = try reader.integer("PORT", default: self.port, in: 0...65535)
        self.mode = try reader.choice("ENV", default: self.mode)
        self.firebaseProjectID = try reader.optionalString("FIREBASE_PROJECT_ID", validate: Self.isValidProjectID)
        self.firebaseCertsURL = try reader.string("FIREBASE_CERTS_URL", default: self.firebaseCertsURL, validate: Self.isAllowedCertsURL)
        self.clockSkewSeconds = try reader.integer("CLOCK_SKEW_SECONDS", default: self.clockSkewSeconds, in: 0...Self.maximumClockSkewSeconds)
        self.tokenCacheSize = try reader.integer("TOKEN_CACHE_SIZE", default: self.tokenCacheSize, in: 0...10_000_000)
        self.devCertsDirectory = try reader.string("DEV_CERTS_DIR", default: self.devCertsDirectory, validate: { !$0.isEmpty })
        self.devAllowNonLoopback = try reader.boolean("DEV_ALLOW_NON_LOOPBACK", default: self.devAllowNonLoopback)
        self.logLevel = try reader.choice("LOG_LEVEL", default: self.logLevel)
        self.rateLimits = try reader.rateLimits(self.rateLimits)
        self.authFailureLimit = try reader.optionalRateLimit("AUTH_FAILURE_LIMIT", name: "auth-failures", default: self.authFailureLimit)
        self.trustedProxies = try reader.list("TRUSTED_PROXIES").map { entry throws(ConfigurationError) in
            guard let range = IPAddressRange(entry) else {
                throw ConfigurationError(variable: "TRUSTED_PROXIES", message: "has an entry that is not an IP address or CIDR block: '\(entry.prefix(60))'")
            }
            return range
        }
        self.redisURL = try reader.optionalString("REDIS_URL", mayHoldSecret: true, validate: { $0.hasPrefix("redis://") && $0.count > "redis://".count })
        self.redisPoolSize = try reader.integer("REDIS_POOL_SIZE", default: self.redisPoolSize, in: 1...64)
        self.redisTimeoutMilliseconds = try reader.integer("REDIS_TIMEOUT_MS", default: self.redisTimeoutMilliseconds, in: 1...10_000)
        self.rateLimitFailurePolicy = try reader.choice("RATE_LIMIT_FAILURE_POLICY", default: self.rateLimitFailurePolicy)
        self.openAIAPIKey = try reader.secret("OPENAI_API_KEY", fileVariable: "OPENAI_API_KEY_FILE")
        self.openAIBaseURL = try reader.string("OPENAI_BASE_URL", default: self.openAIBaseURL, validate: Self.isAllowedCertsURL)
        self.models.text = try reader.string("OPENAI_MODEL_TEXT", default: self.models.text, validate: Self.isModelName)
        self.models.speech = try reader.string("OPENAI_MODEL_SPEECH", default: self.models.speech, validate: Self.isModelName)
        self.models.voice = try reader.string("OPENAI_SPEECH_VOICE", default: self.models.voice, validate: Self.isModelName)
        self.models.moderation = try reader.string("OPENAI_MODEL_MODERATION", default: self.models.moderation, validate: Self.isModelName)
        self.models.image = try reader.string("OPENAI_MODEL_IMAGE", default: self.models.image, validate: Self.isModelName)
        if reader.raw("OPENAI_TIMEOUT_SECONDS") != nil {
            self.openAITimeoutSeconds = try reader.integer("OPENAI_TIMEOUT_SECONDS", default: 60, in: 1...600)
        }
        self.mediaDirectory = try reader.string("MEDIA_DIR", default: self.mediaDirectory, validate: { !$0.isEmpty })
        try self.validate()
    }

    /// Rules across keys: prod needs a Firebase project; dev stays on loopback unless told otherwise.
    public func validate() throws(ConfigurationError) {
        switch self.mode {
        case .prod:
            guard self.firebaseProjectID != nil else {
                throw ConfigurationError(
                    variable: "FIREBASE_PROJECT_ID",
                    message: "is required when ENV=prod: set it to your Firebase project id (or run with ENV=dev for local development)"
                )
            }
        case .dev:
            guard self.devAllowNonLoopback || Self.isLoopback(self.host) else {
                throw ConfigurationError(
                    variable: "HOST",
                    message: "dev mode trusts the X-User-Id header and a published dev key, so it binds to loopback only; '\(self.host)' is not loopback (set DEV_ALLOW_NON_LOOPBACK=true to override)"
                )
            }
        }
    }

    /// The projects whose tokens are accepted: the configured Firebase project, plus the dev project in dev mode.
    public var trustedProjectIDs: [String] {
        var projects: [String] = []
        if let firebaseProjectID { projects.append(firebaseProjectID) }
        if self.mode == .dev, !projects.contains(Self.devProjectID) { projects.append(Self.devProjectID) }
        return projects
    }

    static func isModelName(_ name: String) -> Bool {
        (1...100).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    static func isValidHost(_ host: String) -> Bool {
        !host.isEmpty && host.count <= 253 && host.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ":")
        }
    }

    /// Firebase/Google Cloud project ids: lowercase letters, digits, hyphens (and `domain.com:` prefixes for legacy ones).
    static func isValidProjectID(_ id: String) -> Bool {
        (1...128).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
        }
    }

    /// Certificates come over HTTPS; plain HTTP only to a loopback test server.
    static func isAllowedCertsURL(_ url: String) -> Bool {
        if url.hasPrefix("https://"), url.count > "https://".count { return !url.contains(" ") }
        guard url.hasPrefix("http://") else { return false }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        let host = authority.hasPrefix("[") ? String(authority.prefix { $0 != "]" }.dropFirst()) : String(authority.prefix { $0 != ":" })
        return Self.isLoopback(host)
    }
}
