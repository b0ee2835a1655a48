public import HTTPTypes

/// One entry of the configured route table (`routes:` in the config file): which requests it takes, where they go,
/// and the policy in front of them.
///
/// | key | type | default |
/// |---|---|---|
/// | `path` | `/exact` or `/prefix/` (a prefix when it ends with `/`); URL path characters, no `.`/`..` segments | required |
/// | `methods` | list of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS (a built-in handler: a subset of its own) | the built-in handler's own; every one of those for an upstream |
/// | `builtin` / `upstream` | a `BuiltinHandler` name, or `http(s)://host[:port][/base]` (no user info, query, fragment) | exactly one is required |
/// | `auth` | `required`, `optional`, `none` | `required` |
/// | `rate_limit` | the name of a configured limit (needs `auth: required`) | none |
/// | `cost` | tokens one request takes, 0.001...1000000000 (needs `rate_limit`) | `1` |
/// | `timeout_seconds` | 0.1...3600: the upstream's deadline: for the response head once the request is sent whole, for each body part it takes, then for each pause in the answer (upstream routes only) | `30` |
/// | `max_body_bytes` | 0...1073741824: request body limit, 413 above it | `ServerLimits.maxBodyBytes` |
/// | `forward_authorization` | pass the client's `Authorization` header upstream (upstream routes only) | `false` |
/// | `app_check` | `off`, `monitor`, `enforce`: App Check on this route | the gateway's `APP_CHECK` |
/// | `app_check_consume` | also consume the token (limited-use, replay protection) when App Check is on for the route | `false` |
/// | `idempotency` | `off`, `optional`, `required`: the `Idempotency-Key` header (`IdempotencyMode`); the five functions and upstream routes only, and on an upstream route POST and PATCH requests only | `optional` on the five functions, `off` on every other route |
/// | `name` | a label for logs and metrics, unique in the table | the builtin name, or the path |
///
/// The table: without `routes:` it is `defaults`; `routes:` replaces it with exactly the listed routes, unless the
/// top-level `builtin_routes: true` keeps `defaults` and adds the listed ones (a listed route on a built-in path
/// replaces that one). One route per path: two routes on the same path are an error whatever their methods.
/// A `methods` list or an `idempotency` equal to the target's default is stored as nil.
public struct RouteConfiguration: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        case builtin(BuiltinHandler)
        case upstream(UpstreamURL)
    }

    public enum PathMatch: Sendable, Equatable {
        /// The path exactly (no query).
        case exact(String)
        /// Any path under this prefix, which ends with `/`.
        case prefix(String)
    }

    public enum AuthPolicy: String, Sendable {
        /// A verified identity is needed: no or bad credentials are 401.
        case required
        /// Credentials are verified when present (bad ones are 401); none is fine.
        case optional
        /// Credentials are not read.
        case none
    }

    public var name: String
    public var path: RouteConfiguration.PathMatch
    /// nil: the target's default methods.
    public var methods: [HTTPRequest.Method]?
    public var target: Target
    public var auth: RouteConfiguration.AuthPolicy
    public var rateLimit: RouteRateLimit?
    /// How long an upstream may take to answer (upstream routes).
    public var timeoutSeconds: Double
    /// Request body limit for this route; nil: the server-wide `max_body_bytes`.
    public var maxBodyBytes: Int?
    /// Whether the client's `Authorization` header is passed to the upstream.
    public var forwardAuthorization: Bool
    /// This route's App Check mode; nil: the gateway's.
    public var appCheck: AppCheckSettings.Mode?
    /// Whether the App Check token is consumed (sent to Google's API, refused when replayed).
    public var appCheckConsume: Bool
    /// This route's idempotency mode as configured; nil: the default for its target (``idempotencyMode``).
    public var idempotency: IdempotencyMode?

    /// The idempotency mode in effect: the route's own, else `optional` on the five functions and `off` on every
    /// other route. An upstream route applies it to POST and PATCH requests only.
    public var idempotencyMode: IdempotencyMode {
        self.idempotency ?? self.target.defaultIdempotencyMode
    }

    public init(
        name: String? = nil, path: RouteConfiguration.PathMatch, methods: [HTTPRequest.Method]? = nil, target: Target,
        auth: RouteConfiguration.AuthPolicy = .required, rateLimit: RouteRateLimit? = nil, timeoutSeconds: Double = 30,
        maxBodyBytes: Int? = nil, forwardAuthorization: Bool = false, appCheck: AppCheckSettings.Mode? = nil, appCheckConsume: Bool = false,
        idempotency: IdempotencyMode? = nil
    ) {
        switch (name, target, path) {
        case (let name?, _, _): self.name = name
        case (nil, .builtin(let handler), _): self.name = handler.rawValue
        case (nil, .upstream, .exact(let text)), (nil, .upstream, .prefix(let text)): self.name = text
        }
        self.path = path
        self.methods = methods
        self.target = target
        self.auth = auth
        self.rateLimit = rateLimit
        self.timeoutSeconds = timeoutSeconds
        self.maxBodyBytes = maxBodyBytes
        self.forwardAuthorization = forwardAuthorization
        self.appCheck = appCheck
        self.appCheckConsume = appCheckConsume
        self.idempotency = idempotency
    }

    /// The built-in table: the five functions, `/media/`, `/v1/me`, `/healthz`, `/readyz`, `/openapi.yaml`. `/metrics` is
    /// on the admin listener; a route with `builtin: metrics` serves it on the public one too.
    public static let defaults: [RouteConfiguration] =
        BuiltinHandler.functions.map { handler in
            RouteConfiguration(
                path: .exact("/functions/v1/\(handler.rawValue)"), target: .builtin(handler), auth: .required,
                rateLimit: RouteRateLimit(name: handler.rawValue)
            )
        } + [
            RouteConfiguration(path: .prefix("/media/"), target: .builtin(.media), auth: .none),
            RouteConfiguration(path: .exact("/v1/me"), target: .builtin(.me), auth: .required),
            RouteConfiguration(path: .exact("/healthz"), target: .builtin(.healthz), auth: .none),
            RouteConfiguration(path: .exact("/readyz"), target: .builtin(.readyz), auth: .none),
            RouteConfiguration(path: .exact("/openapi.yaml"), target: .builtin(.openapi), auth: .none),
        ]

    /// What an upstream route forwards when it lists no methods.
    package static let allMethods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]
}

extension RouteConfiguration.Target {
    /// Whether a route to this target may read `Idempotency-Key`: the five functions and upstreams do; the other
    /// built-in handlers (reads, health, media) have nothing to repeat.
    var takesIdempotencyKeys: Bool {
        switch self {
        case .builtin(let handler): BuiltinHandler.functions.contains(handler)
        case .upstream: true
        }
    }

    /// `optional` on the five functions (a client may retry a generation safely without changing), `off` on every
    /// other target (an upstream opts in).
    var defaultIdempotencyMode: IdempotencyMode {
        if case .builtin(let handler) = self, BuiltinHandler.functions.contains(handler) { return .optional }
        return .off
    }
}

/// The handlers compiled into the gateway, by the name a route's `builtin:` uses.
public enum BuiltinHandler: String, Sendable, CaseIterable {
    case storyGeneration = "story-generation"
    case extractScenes = "extract-scenes"
    case audioSynthesis = "audio-synthesis"
    case avatarGeneration = "avatar-generation"
    case sceneIllustration = "scene-illustration"
    case media
    case me
    case healthz
    case readyz
    case metrics
    case openapi

    /// The five AI functions, in the app's order.
    public static let functions: [BuiltinHandler] = [
        .storyGeneration, .extractScenes, .audioSynthesis, .avatarGeneration, .sceneIllustration,
    ]

    /// The methods the handler answers (GET routes answer HEAD too).
    public var methods: [HTTPRequest.Method] {
        BuiltinHandler.functions.contains(self) ? [.post] : [.get]
    }

    /// Prefix routes only make sense for handlers that read the rest of the path.
    public var takesPathPrefix: Bool { self == .media }
}

/// An upstream base URL: `http://host:port/base` (https too). The route's prefix is replaced by `basePath`.
public struct UpstreamURL: Sendable, Equatable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    public let port: Int
    /// The path prefix requests are mapped under, without a trailing `/` ("" for the root).
    public let basePath: String

    /// Parses `http(s)://host[:port][/base]`; nil for anything else (user info, query, fragment, bad port).
    public init?(_ text: String) {
        let scheme: String
        if text.hasPrefix("http://") { scheme = "http" } else if text.hasPrefix("https://") { scheme = "https" } else { return nil }
        let rest = text.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" }
        var path = String(rest.dropFirst(authority.count))
        guard !authority.isEmpty, !authority.contains("@"), !path.contains("?"), !path.contains("#"),
            !path.contains(" "), !authority.contains(" ")
        else { return nil }
        guard let (host, port) = HostPort.split(authority), !host.isEmpty else { return nil }
        while path.hasSuffix("/") { path.removeLast() }
        self.scheme = scheme
        self.host = String(host)
        self.port = port ?? (scheme == "https" ? 443 : 80)
        self.basePath = path
    }

    public var description: String {
        let host = self.host.contains(":") ? "[\(self.host)]" : self.host
        return "\(self.scheme)://\(host):\(self.port)\(self.basePath)"
    }
}
