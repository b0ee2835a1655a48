import Logging
import RateLimiting
import StoryFunctions
import Yams

extension GatewayConfiguration {
    /// The configuration as a config file, for `storygate check-config`: the file's key names, every value resolved
    /// (defaults, file, environment), the route table written out (`builtin_routes: false`), an unset optional value
    /// as `null`. Secrets are redacted: the OpenAI key and the identity-assertion key print as the file they were read
    /// from (`api_key_file`, `secret_file`), or else as `<redacted>` or `unset` (placeholders the loader accepts and
    /// ignores), a Redis URL's password as `<redacted>`. Loading the text gives back an equal configuration, keys read
    /// from files included; a key given in the environment itself is not in the text.
    public func effectiveYAML() throws -> String {
        try Yams.serialize(node: self.effectiveNode, width: -1)
    }

    private var effectiveNode: Node {
        typealias Y = YAMLNode
        let top: [(String, Node)] = [
            ("env", Y.string(self.mode.rawValue)),
            ("log_level", Y.string(self.logLevel.rawValue)),
            ("access_log", Y.bool(self.accessLog)),
            ("listen", Y.mapping([("host", Y.string(self.host)), ("port", Y.int(self.port))])),
            (
                "admin",
                Y.mapping([
                    ("host", Y.string(self.admin?.host ?? AdminListener.defaultHost)), ("port", self.admin.map { Y.int($0.port) } ?? Y.plain("off")),
                    self.adminTokenEntry,
                ])
            ),
            ("firebase", self.firebaseNode),
            ("dev", Y.mapping([("certs_dir", Y.string(self.devCertsDirectory)), ("allow_non_loopback", Y.bool(self.devAllowNonLoopback))])),
            ("openai", self.openAINode),
            ("rate_limits", Y.mapping(self.rateLimits.map { ($0.name, Y.rateLimit($0)) })),
            ("auth_failure_limit", self.authFailureLimit.map(Y.rateLimit) ?? Y.plain("off")),
            ("trusted_proxies", Y.inlineList(self.trustedProxies.map(\.description))),
            ("redis", self.redisNode),
            ("idempotency", self.idempotencyNode),
            ("jobs", self.jobsNode),
            ("media_dir", Y.string(self.mediaDirectory)),
            ("media", self.mediaNode),
            ("server", self.serverNode),
            ("proxy", self.proxyNode),
            ("google", self.googleNode),
            ("builtin_routes", Y.bool(false)),
            ("routes", Y.list(self.routes.map(Y.route))),
        ]
        return Y.mapping(top)
    }

    private var firebaseNode: Node {
        typealias Y = YAMLNode
        return Y.mapping([
            ("project_id", Y.optional(self.firebaseProjectID.map(Y.string))),
            ("project_number", Y.optional(self.appCheck.projectNumber.map(Y.string))),
            ("certs_url", Y.string(self.firebaseCertsURL)),
            ("clock_skew_seconds", Y.int(self.clockSkewSeconds)),
            ("token_cache_size", Y.int(self.tokenCacheSize)),
            ("identity_toolkit_url", Y.string(self.revocation.identityToolkitURL)),
            ("revocation", self.revocationNode),
            ("app_check", self.appCheckNode),
        ])
    }

    private var openAINode: Node {
        typealias Y = YAMLNode
        let models: [(String, Node)] = [
            ("text", Y.string(self.models.text)), ("speech", Y.string(self.models.speech)), ("voice", Y.string(self.models.voice)),
            ("moderation", Y.string(self.models.moderation)), ("image", Y.string(self.models.image)),
        ]
        return Y.mapping([
            ("base_url", Y.string(self.openAIBaseURL)),
            Self.secretEntry(self.openAIAPIKey, key: "api_key"),
            ("timeout_seconds", Y.optional(self.openAITimeoutSeconds.map(Y.int))),
            ("models", Y.mapping(models)),
        ])
    }

    private var redisNode: Node {
        typealias Y = YAMLNode
        return Y.mapping([
            ("url", Y.optional(self.redisURL.map { Y.string(Self.redactingPassword($0)) })),
            ("cluster", Y.bool(self.redisCluster)),
            ("pool_size", Y.int(self.redisPoolSize)),
            ("timeout_ms", Y.int(self.redisTimeoutMilliseconds)),
            ("failure_policy", Y.string(self.rateLimitFailurePolicy.rawValue)),
        ])
    }

    private var serverNode: Node {
        typealias Y = YAMLNode
        return Y.mapping([
            ("max_header_bytes", Y.int(self.server.maxHeaderBytes)),
            ("max_header_count", Y.int(self.server.maxHeaderCount)),
            ("max_body_bytes", Y.int(self.server.maxBodyBytes)),
            ("header_timeout_seconds", Y.number(self.server.headerTimeoutSeconds)),
            ("body_timeout_seconds", Y.number(self.server.bodyTimeoutSeconds)),
            ("idle_timeout_seconds", Y.number(self.server.idleTimeoutSeconds)),
            ("max_connections", Y.int(self.server.maxConnections)),
            ("shutdown_grace_seconds", Y.number(self.server.shutdownGraceSeconds)),
        ])
    }

    private var proxyNode: Node {
        typealias Y = YAMLNode
        let assertion: [(String, Node)] = [
            ("header", Y.string(self.proxy.assertionHeader)),
            Self.secretEntry(self.proxy.assertionSecret, key: "secret"),
            ("accept", Y.bool(self.proxy.acceptAssertions)),
            ("max_age_seconds", Y.number(self.proxy.assertionMaxAgeSeconds)),
        ]
        return Y.mapping([
            ("identity_headers", Y.inlineList(self.proxy.identityHeaders)),
            ("identity_assertion", Y.mapping(assertion)),
            ("connect_timeout_seconds", Y.number(self.proxy.connectTimeoutSeconds)),
            ("max_connections_per_upstream", Y.int(self.proxy.maxConnectionsPerUpstream)),
            ("idle_timeout_seconds", Y.number(self.proxy.idleTimeoutSeconds)),
        ])
    }

    /// `redis://user:<redacted>@host:6379/0` for a URL with user info; the URL itself otherwise.
    static func redactingPassword(_ url: String) -> String {
        let scheme = "redis://"
        guard url.hasPrefix(scheme) else { return "<redacted>" }
        let rest = url.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" }
        guard let at = authority.lastIndex(of: "@") else { return url }
        let user = authority[..<at].prefix { $0 != ":" }
        return scheme + user + ":<redacted>" + rest[at...]
    }

    /// `<key>_file: <path>` for a secret read from a file, else `<key>: <redacted>` or `<key>: unset`.
    private static func secretEntry(_ secret: Secret?, key: String) -> (String, Node) {
        if let path = secret?.path { return (key + "_file", YAMLNode.string(path)) }
        return (key, YAMLNode.string(secret == nil ? "unset" : "<redacted>"))
    }
}
