public import Logging
public import RateLimiting
public import StoryFunctions

/// Everything `storygate serve` is configured with: the defaults, then the config file (`--config`, or
/// `STORYGATE_CONFIG`), then environment variables, then the `--host`/`--port` flags (`load(configPath:…)`).
/// Every file key and variable, with its values and default, is listed in `ConfigurationReference`.
///
/// Relative paths (`media_dir`, `dev.certs_dir`, secret files) are relative to the working directory.
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
    /// The admin listener (`/metrics`, `/healthz`, `/readyz`, `/config`); nil: off.
    public var admin: AdminListener? = AdminListener()
    public var mode = Mode.prod
    public var firebaseProjectID: String?
    public var firebaseCertsURL = Self.googleCertsURL
    public var clockSkewSeconds = 0
    public var tokenCacheSize = 10_000
    /// Firebase App Check at the edge.
    public var appCheck = AppCheckSettings()
    public var devCertsDirectory = "certs/dev"
    public var devAllowNonLoopback = false
    public var logLevel = Logger.Level.info
    /// Per-user limits by name; routes refer to them.
    public var rateLimits: [RateLimit] = RateLimit.defaults
    /// The per-client-address limit on unauthenticated and failed-auth requests (nil: off).
    public var authFailureLimit: RateLimit? = RateLimit(name: "auth-failures", capacity: 20, period: 60)
    public var trustedProxies: [IPAddressRange] = []
    public var redisURL: String?
    public var redisCluster = false
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
    /// The media store (file or S3) and how `/media/<key>` is delivered.
    public var media = MediaConfiguration()
    /// The route table; the default is the built-in one (`RouteConfiguration.defaults`).
    public var routes: [RouteConfiguration] = RouteConfiguration.defaults
    /// Idempotency keys on generations (`idempotency:`); which routes read them is each route's `idempotency`.
    public var idempotency = IdempotencySettings()
    /// Asynchronous generation jobs (`jobs:`).
    public var jobs = JobSettings()
    public var server = ServerLimits()
    public var proxy = ProxySettings()
    /// One JSON line per request on standard error (`ACCESS_LOG`).
    public var accessLog = true
    /// The revocation check (`firebase.revocation`, `IDENTITY_TOOLKIT_URL`).
    public var revocation = RevocationConfiguration()
    /// The service-account key file (`GOOGLE_APPLICATION_CREDENTIALS`): its path only; it is read at start.
    public var googleCredentialsFile: String?
    /// The bearer secret of `POST /admin/v1/revocations` (`ADMIN_TOKEN_FILE`); nil: the route does not exist.
    public var adminToken: Secret?

    public init() {}

    /// Rules across keys: prod needs a Firebase project; dev stays on loopback unless told otherwise; the proxy's
    /// header names and assertion key are usable (`ProxySettings.validate()`), and only the functions and upstream
    /// routes take idempotency keys, whatever set them.
    ///
    /// - Throws: every rule broken, not only the first.
    public func validate() throws(ConfigurationError) {
        var problems = ConfigurationProblems()
        problems.check { try self.proxy.validate() }
        problems.check { _ = try self.media.s3Settings() }
        problems.check { try self.validateRedis() }
        problems.check { try self.validateLimitCosts() }
        problems.check { try self.validateIdempotencyRoutes() }
        problems.check { try self.validateMode() }
        problems.check { try self.validateAppCheck() }
        problems.check { try self.validateAdmin() }
        try problems.throwIfAny()
    }

    func validateMode() throws(ConfigurationError) {
        switch self.mode {
        case .prod:
            guard self.firebaseProjectID != nil else {
                throw ConfigurationError(
                    variable: "FIREBASE_PROJECT_ID",
                    message: "is required when ENV=prod: set it (or firebase.project_id in the config file) to your Firebase project id, or run with ENV=dev for local development"
                )
            }
        case .dev:
            guard self.devAllowNonLoopback || Self.isLoopback(self.host) else {
                throw ConfigurationError(
                    variable: "HOST",
                    message: "must be a loopback address (127.0.0.1, ::1 or localhost) in dev mode, not '\(self.host)': dev mode trusts the X-User-Id header and a published dev key (to bind beyond loopback anyway, set DEV_ALLOW_NON_LOOPBACK=true, or dev.allow_non_loopback: true in the config file)"
                )
            }
        }
    }

    /// The two listeners cannot share a fixed port on one address.
    private func validateAdmin() throws(ConfigurationError) {
        guard let admin, admin.port != 0, admin.port == self.port, admin.host == self.host else { return }
        throw ConfigurationError(
            variable: "ADMIN_PORT",
            message: "must differ from PORT (both are \(self.port) on \(self.host)): use another port, 0 for a free one, or off"
        )
    }

    /// A request whose cost is over its limit's capacity could never pass (and `Retry-After` would promise a time
    /// that never comes): each route's cost, and the failed-authentication limit's 1, must fit in a full bucket.
    private func validateLimitCosts() throws(ConfigurationError) {
        for route in self.routes {
            guard let rule = route.rateLimit, let limit = self.rateLimits.first(where: { $0.name == rule.name }) else { continue }
            guard rule.cost <= limit.capacity else {
                throw ConfigurationError(
                    variable: "routes",
                    message: "route \(route.name) costs \(rule.cost) but the limit '\(limit.name)' holds only \(limit.capacity): no request could ever pass (lower the cost or raise the capacity)"
                )
            }
        }
        if let limit = self.authFailureLimit, limit.capacity < 1 {
            throw ConfigurationError(
                variable: "AUTH_FAILURE_LIMIT",
                message: "holds \(limit.capacity) tokens, less than one failed attempt costs: every request without valid credentials would be refused (use at least 1, or off)"
            )
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

    /// What the Redis store takes in either mode: the same parser, so `check-config` refuses what `serve` would
    /// (`validateRedis()` checks the URL against the mode).
    static func isRedisURL(_ url: String) -> Bool {
        RedisRateLimitStore.isValidURL(url) || RedisRateLimitStore.isValidURL(url, cluster: true)
    }

    /// An HTTP header name: an RFC 9110 token of at most 128 characters.
    static func isHeaderName(_ name: String) -> Bool {
        (1...128).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// A rate limit name: a lowercase letter, then lowercase letters, digits and `-`; at most 64.
    static func isRateLimitName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z"), name.utf8.count <= 64 else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
        }
    }

    /// `localhost`, `::1` or an IPv4 address in 127.0.0.0/8 written as four decimal numbers (`127.example.com` is not).
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { part in
            (1...3).contains(part.utf8.count) && part.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } && Int(part)! <= 255
        }
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

    /// Certificates (and OpenAI) come over HTTPS; plain HTTP only to a loopback test server. A URL with user info
    /// is refused: `http://127.0.0.1@example.com/` is example.com (RFC 3986 §3.2.1), and credentials do not
    /// belong in it.
    static func isAllowedCertsURL(_ url: String) -> Bool {
        let isHTTPS = url.hasPrefix("https://")
        guard isHTTPS || url.hasPrefix("http://"), !url.contains(" ") else { return false }
        let authority = url.dropFirst(isHTTPS ? "https://".count : "http://".count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return false }
        return isHTTPS || Self.isLoopbackAuthority(authority)
    }

    /// `host[:port]` with a loopback host (``isLoopback(_:)``; IPv6 in brackets) and nothing else.
    private static func isLoopbackAuthority(_ authority: Substring) -> Bool {
        HostPort.split(authority).map { Self.isLoopback(String($0.host)) } ?? false
    }
}
