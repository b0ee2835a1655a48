import IDTokens
/// Limits of the HTTP listener (`server:` in the config file). Every key, its variable, its type and its default:
///
/// | key | variable | type | default |
/// |---|---|---|---|
/// | `max_header_bytes` | | 1024...1048576: all request header lines together (431 above) | `32768` |
/// | `max_header_count` | | 1...1000 header fields (431 above) | `100` |
/// | `max_body_bytes` | `MAX_BODY_BYTES` | 0...1073741824: request body limit of routes that set none (413 above) | `10485760` (10 MiB) |
/// | `header_timeout_seconds` | | 0.1...3600: a connection must deliver a whole request head within this (slow clients are cut off) | `10` |
/// | `body_timeout_seconds` | | 0.1...3600: while the gateway waits for more of a request body, the client must send some within this, or the answer is 408 `REQUEST_TIMEOUT` and the connection closes | `30` |
/// | `idle_timeout_seconds` | | 0.1...3600: a keep-alive connection with nothing to do is closed after this | `75` |
/// | `max_connections` | `MAX_CONNECTIONS` | 1...1000000 open client connections; more wait in the accept backlog | `20000` |
/// | `shutdown_grace_seconds` | `SHUTDOWN_GRACE_SECONDS` | 0...3600: on SIGTERM/SIGINT, how long requests in flight may take to finish | `25` |
///
/// `direct_path` and `raw_path` (`DIRECT_PATH`, `RAW_PATH`) are accepted and ignored (``removedSettings``).
public struct ServerLimits: Sendable, Equatable {
    public var maxHeaderBytes = 32 * 1024
    public var maxHeaderCount = 100
    public var maxBodyBytes = 10 * 1024 * 1024
    public var headerTimeoutSeconds = 10.0
    public var bodyTimeoutSeconds = 30.0
    public var idleTimeoutSeconds = 75.0
    public var maxConnections = 20_000
    public var shutdownGraceSeconds = 25.0
    /// Removed settings that were set (`server.direct_path`, `RAW_PATH`, ...), in the order found: accepted and
    /// ignored, and named in one warning line at start.
    public internal(set) var removedSettings: [String] = []

    public init() {}

    /// The keys of `server:`.
    static let keys = [
        "max_header_bytes", "max_header_count", "max_body_bytes", "header_timeout_seconds", "body_timeout_seconds", "idle_timeout_seconds",
        "max_connections", "shutdown_grace_seconds", "direct_path", "raw_path",
    ]
}

/// How requests are forwarded to upstreams (`proxy:` in the config file).
///
/// | key | variable | type | default |
/// |---|---|---|---|
/// | `identity_headers` | | list of header names that carry identity: every client-sent copy is removed before forwarding | `[X-User-Id]` |
/// | `identity_assertion.header` | | the header carrying the HMAC-signed identity assertion | `X-StoryGate-Identity` |
/// | `identity_assertion.secret_file` | `IDENTITY_ASSERTION_SECRET_FILE` | a file holding the shared HMAC key (at least 32 bytes), read at start; no assertion when unset | none |
/// | `identity_assertion.accept` | `IDENTITY_ASSERTION_ACCEPT` | whether an incoming assertion is a credential here (a gateway behind a gateway); `false` at an edge that only signs them, so one an upstream has seen cannot be replayed to the edge | `true` |
/// | `identity_assertion.max_age_seconds` | | 1...3600: how old an assertion another gateway signed may be when this one verifies it (its clock may be 5 s ahead) | `60` |
/// | `connect_timeout_seconds` | | 0.1...600: connecting to an upstream | `5` |
/// | `max_connections_per_upstream` | | 1...10000 pooled keep-alive connections per upstream and event loop | `64` |
/// | `idle_timeout_seconds` | | 0.1...3600: a pooled upstream connection idle this long is closed (keep it below the upstreams' own keep-alive timeout) | `60` |
///
/// Checked when the configuration is loaded (`validate()`), whatever set them: the identity header names are HTTP
/// field names, the assertion header is one the gateway does not set or strip for another purpose, the key has at
/// least 32 bytes.
///
/// The key itself is never written in the file: `check-config` prints `identity_assertion.secret_file: <path>` for
/// a key read from a file, else `identity_assertion.secret: unset`, a placeholder the loader accepts and ignores.
public struct ProxySettings: Sendable, Equatable {
    public var identityHeaders: [String] = ["X-User-Id"]
    public var assertionHeader = "X-StoryGate-Identity"
    /// The shared HMAC key for identity assertions (from `identity_assertion.secret_file` or `IDENTITY_ASSERTION_SECRET_FILE`).
    public var assertionSecret: Secret?
    /// Whether an incoming identity assertion is a credential (`identity_assertion.accept`); signing needs only the key.
    public var acceptAssertions = true
    /// Seconds an identity assertion is accepted for (`identity_assertion.max_age_seconds`).
    public var assertionMaxAgeSeconds = IdentityAssertion.defaultMaxAge
    public var connectTimeoutSeconds = 5.0
    public var maxConnectionsPerUpstream = 64
    /// Seconds a pooled upstream connection may stay idle before it is closed.
    public var idleTimeoutSeconds = 60.0

    public init() {}

    /// The keys of `proxy:`.
    static let keys = [
        "identity_headers", "identity_assertion", "connect_timeout_seconds", "max_connections_per_upstream", "idle_timeout_seconds",
    ]

    /// The keys of `proxy.identity_assertion:` (`secret` only as the redaction placeholder `check-config` prints).
    static let assertionKeys = ["header", "secret_file", "secret", "accept", "max_age_seconds"]
}
