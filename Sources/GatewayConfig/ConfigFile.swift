import IDTokens
import Logging
import Yams

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A parsed config file (`storygate serve --config storygate.yaml`), every value kept with its line.
///
/// `apply(to:)` writes its values over a configuration (the defaults), before the environment and the flags;
/// see `GatewayConfiguration.load`. Every key is listed in `storygate.example.yaml` and on the configuration types.
struct ConfigFile {
    /// The file name used in messages.
    let name: String
    /// The top-level mapping; nil for an empty file (all defaults).
    let root: ConfigValue?

    /// The keys allowed at the top level.
    static let keys = [
        "env", "log_level", "access_log", "listen", "admin", "firebase", "dev", "openai", "rate_limits", "auth_failure_limit",
        "trusted_proxies", "redis", "idempotency", "jobs", "media_dir", "media", "server", "proxy", "builtin_routes", "routes", "google",
    ]
    static let maximumBytes = 1 << 20

    /// Parses `text`; `name` is what messages call the file.
    init(text: String, name: String) throws(ConfigurationError) {
        self.name = name
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw Self.syntaxError(error, text: text, name: name)
        } catch {
            throw ConfigurationError(file: name, line: nil, key: "", message: "is not valid YAML")
        }
        guard let node, !ConfigValue(node: node, path: "", file: name).isNull else {
            self.root = nil
            return
        }
        let root = ConfigValue(node: node, path: "", file: name)
        guard case .mapping = node else {
            throw ConfigurationError(
                file: name, line: root.line, key: "",
                message: "the top level must be a mapping of keys (\(Self.keys.joined(separator: ", "))), not \(root.shown)"
            )
        }
        self.root = root
    }

    /// Reads and parses the file at `path` (UTF-8, at most 1 MiB).
    static func read(path: String) throws(ConfigurationError) -> ConfigFile {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path: path, limit: Self.maximumBytes)
        } catch let error as FileBytes.ReadError {
            let reason = error.errno == EFBIG ? "is larger than 1 MiB" : "cannot be read: \(String(cString: strerror(error.errno)))"
            throw ConfigurationError(file: path, line: nil, key: "", message: reason)
        } catch {
            throw ConfigurationError(file: path, line: nil, key: "", message: "cannot be read")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError(file: path, line: nil, key: "", message: "is not UTF-8 text")
        }
        return try ConfigFile(text: text, name: path)
    }

    /// Writes the file's values over `configuration`. Cross-key rules that the environment may still change
    /// (`GatewayConfiguration.validate()`) are left to the caller.
    ///
    /// - Throws: every problem found (unknown keys, each section, each rate limit and route), not only the first.
    /// - Parameter environmentLimits: the limits `RATE_LIMIT_<NAME>` variables add, which routes may name too.
    func apply(to configuration: inout GatewayConfiguration, environmentLimits: [String] = []) throws(ConfigurationError) {
        guard let root = self.root else { return }
        var problems = ConfigurationProblems()
        let top = ConfigMapping(root, allowed: Self.keys, problems: &problems)
        problems.check { try top.assign(&configuration.mode, "env") { value throws(ConfigurationError) in try value.choice(GatewayConfiguration.Mode.self) } }
        problems.check { try top.assign(&configuration.logLevel, "log_level") { value throws(ConfigurationError) in try value.choice(Logger.Level.self) } }
        problems.check { try top.assign(&configuration.accessLog, "access_log") { value throws(ConfigurationError) in try value.boolean() } }
        problems.check {
            try top.assign(&configuration.mediaDirectory, "media_dir") { value throws(ConfigurationError) in
                try value.string("a directory path", isValid: { !$0.isEmpty })
            }
        }
        problems.check {
            try top.assign(&configuration.trustedProxies, "trusted_proxies") { value throws(ConfigurationError) in
                try value.list().map { entry throws(ConfigurationError) in
                    guard let range = IPAddressRange(try entry.string()) else {
                        throw entry.error("must be an IP address or CIDR block (10.0.0.0/8, ::1), not \(entry.shown)")
                    }
                    return range
                }
            }
        }
        if let listen = top["listen"] { problems.check { try Self.applyListen(listen, to: &configuration) } }
        if let firebase = top["firebase"] { problems.check { try Self.applyFirebase(firebase, to: &configuration) } }
        if let dev = top["dev"] { problems.check { try Self.applyDev(dev, to: &configuration) } }
        if let openAI = top["openai"] { problems.check { try Self.applyOpenAI(openAI, to: &configuration) } }
        if let redis = top["redis"] { problems.check { try Self.applyRedis(redis, to: &configuration) } }
        if let idempotency = top["idempotency"] { problems.check { try Self.applyIdempotency(idempotency, to: &configuration.idempotency) } }
        if let jobs = top["jobs"] { problems.check { try Self.applyJobs(jobs, to: &configuration.jobs) } }
        if let media = top["media"] { problems.check { try Self.applyMedia(media, to: &configuration) } }
        if let server = top["server"] { problems.check { try Self.applyServer(server, to: &configuration.server) } }
        if let proxy = top["proxy"] { problems.check { try Self.applyProxy(proxy, to: &configuration.proxy) } }
        if let google = top["google"] { problems.check { try Self.applyGoogle(google, to: &configuration) } }
        if let admin = top["admin"] { problems.check { try Self.applyAdmin(admin, to: &configuration) } }
        let defined = Self.applyRateLimits(top, to: &configuration, problems: &problems)
        // With a bad route the table is not the file's: whether a limit is used cannot be told.
        if Self.applyRoutes(top, to: &configuration, environmentLimits: environmentLimits, problems: &problems) {
            Self.checkLimitsUsed(defined, configuration: configuration, problems: &problems)
        }
        try problems.throwIfAny()
    }

    private static func syntaxError(_ error: YamlError, text: String, name: String) -> ConfigurationError {
        switch error {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let detail = context.map { " (\($0.text), line \($0.mark.line))" } ?? ""
            return ConfigurationError(file: name, line: mark.line, key: "", message: "is not valid YAML: \(problem)\(detail)")
        case .duplicatedKeysInMapping(let duplicates, let context):
            return DuplicateKey.error(key: duplicates.first ?? "?", firstMark: context.mark, text: text, name: name)
        case .reader(let problem, _, _, _):
            return ConfigurationError(file: name, line: nil, key: "", message: "is not valid YAML: \(problem)")
        default:
            return ConfigurationError(file: name, line: nil, key: "", message: "is not valid YAML")
        }
    }
}
