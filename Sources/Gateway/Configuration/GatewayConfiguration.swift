public import Logging

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
