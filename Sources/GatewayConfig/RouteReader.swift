import HTTPTypes

/// Reads one entry of `routes:` (the keys of `RouteConfiguration`), checking it on its own; the table-wide rules
/// (duplicates, names) are `ConfigFile.applyRoutes`'s.
struct RouteReader {
    static let keys = [
        "name", "path", "methods", "builtin", "upstream", "auth", "rate_limit", "cost", "timeout_seconds", "max_body_bytes",
        "forward_authorization", "app_check", "app_check_consume", "idempotency",
    ]

    /// The configured limits, which `rate_limit:` may name.
    let limits: [String]

    func route(_ value: ConfigValue) throws(ConfigurationError) -> RouteConfiguration {
        let route = try value.mapping(Self.keys)
        let pathValue = try route.required("path")
        let path = try Self.path(pathValue)
        let target = try Self.target(route, path: path)
        let isUpstream: Bool
        if case .upstream = target { isUpstream = true } else { isUpstream = false }
        for key in ["timeout_seconds", "forward_authorization"] where !isUpstream {
            if let value = route[key] { throw value.error("applies to upstream routes only") }
        }
        let auth = try route.read("auth") { value throws(ConfigurationError) in try value.choice(RouteConfiguration.AuthPolicy.self) } ?? .required
        var rateLimit: RouteRateLimit?
        if let limitValue = route["rate_limit"], !limitValue.isNull {
            let name = try limitValue.string()
            guard self.limits.contains(name) else {
                throw limitValue.error(
                    "names no configured limit\(Suggestion.phrase(name, among: self.limits)); configured: \(self.limits.joined(separator: ", ")) (add it under rate_limits:)"
                )
            }
            guard auth == .required else {
                throw limitValue.error("is a per-user limit, so the route needs auth: required (it has auth: \(auth.rawValue))")
            }
            let cost = try route.read("cost") { value throws(ConfigurationError) in try value.number(in: ConfigurationBounds.routeCost) } ?? 1
            rateLimit = RouteRateLimit(name: name, cost: cost)
        } else if let cost = route["cost"] {
            throw cost.error("needs a rate_limit: on the same route")
        }
        let name = try route.read("name") { value throws(ConfigurationError) in
            try value.string("a name of 1 to 128 letters, digits and . _ ~ / : @ -", isValid: Self.isName)
        }
        let idempotency = try route.read("idempotency") { value throws(ConfigurationError) in
            try Self.idempotency(value, target: target, name: name, auth: auth)
        } ?? nil
        return RouteConfiguration(
            name: name,
            path: path,
            methods: try route.read("methods") { value throws(ConfigurationError) in try Self.methods(value, target: target) } ?? nil,
            target: target,
            auth: auth,
            rateLimit: rateLimit,
            timeoutSeconds: try route.read("timeout_seconds") { value throws(ConfigurationError) in
                try value.number(in: ConfigurationBounds.timeoutSeconds)
            } ?? 30,
            maxBodyBytes: try route.read("max_body_bytes") { value throws(ConfigurationError) in
                value.isNull ? nil : try value.integer(in: ConfigurationBounds.maxBodyBytes)
            } ?? nil,
            forwardAuthorization: try route.read("forward_authorization") { value throws(ConfigurationError) in try value.boolean() } ?? false,
            appCheck: try route.read("app_check") { value throws(ConfigurationError) in
                value.isNull ? nil : try value.choice(AppCheckSettings.Mode.self)
            } ?? nil,
            appCheckConsume: try route.read("app_check_consume") { value throws(ConfigurationError) in try value.boolean() } ?? false,
            idempotency: idempotency
        )
    }

    /// A mode the target takes; nil when it is the target's default (so the effective YAML loads back equal). Only
    /// `off` on a built-in handler other than the five functions.
    private static func idempotency(
        _ value: ConfigValue, target: RouteConfiguration.Target, name: String?, auth: RouteConfiguration.AuthPolicy
    ) throws(ConfigurationError) -> IdempotencyMode? {
        let mode = try value.choice(IdempotencyMode.self)
        if case .builtin(let handler) = target, !target.takesIdempotencyKeys, mode != .off {
            throw value.error(
                "idempotency applies to the functions and upstream routes, not to route \(name ?? handler.rawValue) (builtin: \(handler.rawValue)): leave it out, or set it to off"
            )
        }
        // A key names a record of one user's: a route without a verified caller has nobody to scope it to.
        if case .upstream = target, mode != .off, auth != .required {
            throw value.error("keeps answers per user, so the route needs auth: required (it has auth: \(auth.rawValue))")
        }
        return mode == target.defaultIdempotencyMode ? nil : mode
    }

    /// `/exact` or `/prefix/`: URL path characters, no `.` or `..` segments, no query.
    static func path(_ value: ConfigValue) throws(ConfigurationError) -> RouteConfiguration.PathMatch {
        let text = try value.string("an absolute path (/exact, or /prefix/ ending with /) of URL path characters", isValid: Self.isPath)
        return text.hasSuffix("/") ? .prefix(text) : .exact(text)
    }

    /// Exactly one of `builtin` and `upstream`, fitting the path.
    private static func target(_ route: ConfigMapping, path: RouteConfiguration.PathMatch) throws(ConfigurationError) -> RouteConfiguration.Target {
        switch (route["builtin"], route["upstream"]) {
        case (let builtinValue?, nil):
            let builtin = try builtinValue.choice(BuiltinHandler.self)
            switch (builtin.takesPathPrefix, path) {
            case (true, .exact): throw builtinValue.error("\(builtin.rawValue) serves the paths under its path, so the path must end with /")
            case (false, .prefix): throw builtinValue.error("\(builtin.rawValue) answers one path, so the path must not end with /")
            default: return .builtin(builtin)
            }
        case (nil, let upstreamValue?):
            let text = try upstreamValue.string()
            guard !text.contains("@") else { throw upstreamValue.error("must not carry user info (the value is not shown: it may hold a password)") }
            guard let upstream = UpstreamURL(text) else {
                throw upstreamValue.error("\(upstreamValue.shown) is not an http(s) URL of the form http://host:port/base (no query or fragment)")
            }
            return .upstream(upstream)
        case (_?, let upstreamValue?):
            throw upstreamValue.error("a route has builtin: or upstream:, not both")
        case (nil, nil):
            throw route.value.error("needs builtin: (\(BuiltinHandler.names.joined(separator: ", "))) or upstream: (http://host:port/base)")
        }
    }

    /// A list of methods; nil when it is the target's default (so the effective YAML loads back equal).
    private static func methods(_ value: ConfigValue, target: RouteConfiguration.Target) throws(ConfigurationError) -> [HTTPRequest.Method]? {
        let allowed: [HTTPRequest.Method]
        switch target {
        case .builtin(let builtin): allowed = builtin.methods.contains(.get) ? builtin.methods + [.head] : builtin.methods
        case .upstream: allowed = RouteConfiguration.allMethods
        }
        var methods: [HTTPRequest.Method] = []
        for entry in try value.list() {
            let name = try entry.string().uppercased()
            guard let method = allowed.first(where: { $0.rawValue == name }) else {
                throw entry.error("must be one of \(allowed.map(\.rawValue).joined(separator: ", ")), not \(entry.shown)")
            }
            guard !methods.contains(method) else { throw entry.error("lists \(name) twice") }
            methods.append(method)
        }
        guard !methods.isEmpty else { throw value.error("must list at least one method (leave it out for the default)") }
        let withoutHead = methods.contains(.get) ? methods.filter { $0 != .head } : methods
        switch target {
        case .builtin(let builtin): return Set(withoutHead) == Set(builtin.methods) ? nil : withoutHead
        case .upstream: return Set(methods) == Set(RouteConfiguration.allMethods) ? nil : methods
        }
    }

    static func isPath(_ path: String) -> Bool {
        guard path.hasPrefix("/"), path.utf8.count <= 1024 else { return false }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.contains(where: { $0 == "." || $0 == ".." }) else { return false }
        return path.utf8.allSatisfy { byte in Self.isUnreservedOrSymbol(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "%") }
    }

    static func isName(_ name: String) -> Bool {
        (1...128).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            Self.isAlphanumeric(byte) || "._~/:@-".utf8.contains(byte)
        }
    }

    /// RFC 3986 `pchar` without `%`: unreserved, sub-delims, `:` and `@`.
    private static func isUnreservedOrSymbol(_ byte: UInt8) -> Bool {
        Self.isAlphanumeric(byte) || "-._~!$&'()*+,;=:@".utf8.contains(byte)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}

extension RouteConfiguration.AuthPolicy: CaseNamed {
    static var names: [String] { ["required", "optional", "none"] }
}

extension BuiltinHandler: CaseNamed {
    static var names: [String] { BuiltinHandler.allCases.map(\.rawValue) }
}
