import Testing

@testable import Gateway
@testable import GatewayConfig

/// One invalid config file and the error it must give: the line, the key path and a phrase of the message.
struct InvalidFile: Sendable, CustomTestStringConvertible {
    let name: String
    let yaml: String
    let line: Int
    let key: String
    let phrase: String

    init(_ name: String, _ yaml: String, line: Int, key: String, _ phrase: String) {
        self.name = name
        self.yaml = yaml
        self.line = line
        self.key = key
        self.phrase = phrase
    }

    var testDescription: String { self.name }
}

@Suite("Config file: each kind of invalid file gives its message")
struct ConfigFileErrorTests {
    static let syntaxCases: [InvalidFile] = [
        InvalidFile("YAML syntax", "listen: {port: 1\nenv: dev\n", line: 2, key: "", "is not valid YAML"),
        InvalidFile("top level is a list", "- env\n- dev\n", line: 1, key: "", "the top level must be a mapping of keys (env, log_level"),
        InvalidFile("top level is a scalar", "hello\n", line: 1, key: "", "the top level must be a mapping"),
        InvalidFile("duplicate top-level key", "env: dev\nlog_level: info\nenv: prod\n", line: 3, key: "env", "appears twice in one mapping (first at line 1)"),
        InvalidFile(
            "duplicate key in a route", "routes:\n  - path: /a\n    builtin: me\n  - path: /b\n    auth: none\n    builtin: healthz\n    auth: required\n",
            line: 7, key: "routes[1].auth", "appears twice in one mapping (first at line 5)"
        ),
        InvalidFile("unknown top-level key", "lisen:\n  port: 1\n", line: 1, key: "lisen", "unknown key (did you mean 'listen'?); allowed here: env, log_level"),
        InvalidFile("misspelt jobs key", "jobs:\n  worker: 2\n", line: 2, key: "jobs.worker", "unknown key (did you mean 'workers'?); allowed here: workers, queue_max"),
        InvalidFile("unknown nested key", "listen:\n  host: 127.0.0.1\n  prot: 80\n", line: 3, key: "listen.prot", "unknown key (did you mean 'port'?); allowed here: host, port"),
        InvalidFile("camelCase key", "firebase:\n  projectId: x\n", line: 2, key: "firebase.projectId", "did you mean 'project_id'?"),
    ]

    static let typesCases: [InvalidFile] = [
        InvalidFile("a word for a number", "listen:\n  port: eighty\n", line: 2, key: "listen.port", "must be a whole number from 0 to 65535, not 'eighty'"),
        InvalidFile("a quoted number", "listen: {port: \"8080\"}\n", line: 1, key: "listen.port", "not the string '8080'"),
        InvalidFile("a fraction for a whole number", "redis:\n  pool_size: 2.5\n", line: 2, key: "redis.pool_size", "must be a whole number from 1 to 64"),
        InvalidFile("a scalar for a section", "listen: 8080\n", line: 1, key: "listen", "must be a mapping, not '8080'"),
        InvalidFile("a list for a string", "media_dir: [a, b]\n", line: 1, key: "media_dir", "must be a string, not a list"),
        InvalidFile("a word for a boolean", "access_log: maybe\n", line: 1, key: "access_log", "must be true or false, not 'maybe'"),
        InvalidFile("an unknown choice", "env: staging\n", line: 1, key: "env", "must be one of prod, dev, not 'staging'"),
        InvalidFile("a misspelt choice", "redis:\n  failure_policy: clsed\n", line: 2, key: "redis.failure_policy", "(did you mean 'closed'?)"),
        InvalidFile("an unknown idempotency policy", "idempotency:\n  failure_policy: fail\n", line: 2, key: "idempotency.failure_policy", "must be one of open, closed"),
        InvalidFile("a fraction of a worker", "jobs:\n  workers: 1.5\n", line: 2, key: "jobs.workers", "must be a whole number from 0 to 256"),
        InvalidFile("a null number", "listen:\n  port:\n", line: 2, key: "listen.port", "not null"),
        InvalidFile("a scalar for a list", "trusted_proxies: 10.0.0.1\n", line: 1, key: "trusted_proxies", "must be a list"),
    ]

    static let rangesCases: [InvalidFile] = [
        InvalidFile("clock skew above 60", "firebase:\n  clock_skew_seconds: 61\n", line: 2, key: "firebase.clock_skew_seconds", "from 0 to 60, not '61'"),
        InvalidFile("negative port", "listen: {port: -1}\n", line: 1, key: "listen.port", "from 0 to 65535"),
        InvalidFile("tiny header limit", "server:\n  max_header_bytes: 10\n", line: 2, key: "server.max_header_bytes", "from 1024 to 1048576"),
        InvalidFile("zero timeout", "server:\n  idle_timeout_seconds: 0\n", line: 2, key: "server.idle_timeout_seconds", "a number from 0.1 to 3600"),
        InvalidFile("OpenAI timeout", "openai:\n  timeout_seconds: 601\n", line: 2, key: "openai.timeout_seconds", "from 1 to 600"),
        InvalidFile("idempotency TTL over 30 days", "idempotency:\n  ttl_seconds: 2592001\n", line: 2, key: "idempotency.ttl_seconds", "from 1 to 2592000"),
        InvalidFile("a queue of none", "jobs:\n  queue_max: 0\n", line: 2, key: "jobs.queue_max", "from 1 to 1000000"),
        InvalidFile("retention under a minute", "jobs: {retention_seconds: 59}\n", line: 1, key: "jobs.retention_seconds", "from 60 to 2592000"),
        InvalidFile("a lease under 5 s", "jobs:\n  lease_seconds: 4\n", line: 2, key: "jobs.lease_seconds", "from 5 to 3600"),
        InvalidFile("zero capacity", "rate_limits:\n  api:\n    capacity: 0\n    period_seconds: 60\n", line: 3, key: "rate_limits.api.capacity", "a number from"),
        InvalidFile(
            "assertion max age of zero", "proxy:\n  identity_assertion:\n    max_age_seconds: 0\n", line: 3,
            key: "proxy.identity_assertion.max_age_seconds", "a number from 1 to 3600, not '0'"
        ),
        InvalidFile(
            "assertion max age over an hour", "proxy:\n  identity_assertion: {max_age_seconds: 3601}\n", line: 2,
            key: "proxy.identity_assertion.max_age_seconds", "a number from 1 to 3600"
        ),
        InvalidFile("upstream idle timeout of zero", "proxy:\n  idle_timeout_seconds: 0\n", line: 2, key: "proxy.idle_timeout_seconds", "a number from 0.1 to 3600"),
        InvalidFile("upstream idle timeout as a word", "proxy:\n  idle_timeout_seconds: long\n", line: 2, key: "proxy.idle_timeout_seconds", "not 'long'"),
    ]

    static let valuesCases: [InvalidFile] = [
        InvalidFile("certs URL over http", "firebase:\n  certs_url: http://example.com/certs\n", line: 2, key: "firebase.certs_url", "an https URL"),
        InvalidFile("OpenAI base URL over ftp", "openai:\n  base_url: ftp://x/v1\n", line: 2, key: "openai.base_url", "not 'ftp://x/v1'"),
        InvalidFile("bad project id", "firebase: {project_id: My Project}\n", line: 1, key: "firebase.project_id", "a Firebase project id"),
        InvalidFile("bad host", "listen:\n  host: bad host\n", line: 2, key: "listen.host", "a host name or IP address"),
        InvalidFile("bad model", "openai:\n  models:\n    text: gpt 5\n", line: 3, key: "openai.models.text", "a model name"),
        InvalidFile("bad proxy entry", "trusted_proxies:\n  - 10.0.0.0/8\n  - not-an-ip\n", line: 3, key: "trusted_proxies[1]", "an IP address or CIDR block"),
        InvalidFile("bad header name", "proxy:\n  identity_headers: [X-User-Id, Bad Header]\n", line: 2, key: "proxy.identity_headers[1]", "an HTTP header name"),
        InvalidFile("bad limit name", "rate_limits:\n  Bad_Name: {capacity: 1, period_seconds: 1}\n", line: 2, key: "rate_limits.Bad_Name", "lowercase letters"),
        InvalidFile("limit without capacity", "rate_limits:\n  api: {period_seconds: 60}\n", line: 2, key: "rate_limits.api", "needs the key capacity"),
        InvalidFile("auth failure limit on", "auth_failure_limit: on\n", line: 1, key: "auth_failure_limit", "must be {capacity, period_seconds} or off"),
        InvalidFile("unreadable key file", "openai:\n  api_key_file: /nonexistent/openai-key\n", line: 2, key: "openai.api_key_file", "cannot be read"),
        InvalidFile("inline OpenAI key", "openai:\n  api_key: sk-live-123\n", line: 2, key: "openai.api_key", "OPENAI_API_KEY environment variable, or in a file named by openai.api_key_file"),
        InvalidFile("inline assertion secret", "proxy:\n  identity_assertion:\n    secret: abc\n", line: 3, key: "proxy.identity_assertion.secret", "secret_file"),
        InvalidFile("bad assertion header", "proxy:\n  identity_assertion:\n    header: X Identity\n", line: 3, key: "proxy.identity_assertion.header", "an HTTP header name"),
        InvalidFile(
            "assertion in X-User-Id", "proxy:\n  identity_assertion:\n    header: X-User-Id\n", line: 3, key: "proxy.identity_assertion.header",
            "must not be 'X-User-Id': the gateway sets, removes or reads that header for another purpose"
        ),
        InvalidFile("assertion in Authorization", "proxy:\n  identity_assertion: {header: authorization}\n", line: 2, key: "proxy.identity_assertion.header", "must not be 'authorization'"),
        InvalidFile("assertion in a Proxy- header", "proxy:\n  identity_assertion: {header: Proxy-Identity}\n", line: 2, key: "proxy.identity_assertion.header", "must not be"),
        InvalidFile("unknown assertion key", "proxy:\n  identity_assertion:\n    max_age: 30\n", line: 3, key: "proxy.identity_assertion.max_age", "(did you mean 'max_age_seconds'?)"),
    ]

    static let routesCases: [InvalidFile] = [
        InvalidFile("upstream over ftp", "routes:\n  - path: /x\n    upstream: ftp://x\n", line: 3, key: "routes[0].upstream", "'ftp://x' is not an http(s) URL"),
        InvalidFile("upstream with a query", "routes:\n  - path: /x\n    upstream: http://h:1/b?q=1\n", line: 3, key: "routes[0].upstream", "is not an http(s) URL"),
        InvalidFile("both targets", "routes:\n  - path: /x\n    builtin: me\n    upstream: http://h:1\n", line: 4, key: "routes[0].upstream", "not both"),
        InvalidFile("no target", "routes:\n  - path: /x\n    auth: none\n", line: 2, key: "routes[0]", "needs builtin: (story-generation"),
        InvalidFile("unknown builtin", "routes:\n  - {path: /s, builtin: story-gen}\n", line: 2, key: "routes[0].builtin", "(did you mean 'story-generation'?)"),
        InvalidFile("media on an exact path", "routes:\n  - {path: /media, builtin: media}\n", line: 2, key: "routes[0].builtin", "must end with /"),
        InvalidFile("healthz on a prefix", "routes:\n  - {path: /health/, builtin: healthz}\n", line: 2, key: "routes[0].builtin", "must not end with /"),
        InvalidFile("no path", "routes:\n  - builtin: me\n", line: 2, key: "routes[0]", "needs the key path"),
        InvalidFile("relative path", "routes:\n  - {path: api, builtin: me}\n", line: 2, key: "routes[0].path", "an absolute path"),
        InvalidFile("dot-dot path", "routes:\n  - {path: /a/../b, builtin: me}\n", line: 2, key: "routes[0].path", "an absolute path"),
        InvalidFile(
            "duplicate exact path", "routes:\n  - {path: /v1/me, builtin: me}\n  - {path: /v1/me, upstream: 'http://h:1', methods: [POST]}\n",
            line: 3, key: "routes[1].path", "'/v1/me' is already routed by routes[0] (line 2)"
        ),
        InvalidFile(
            "duplicate prefix", "routes:\n  - path: /api/\n    upstream: http://a:1\n  - path: /api/\n    upstream: http://b:1\n",
            line: 4, key: "routes[1].path", "is already routed by routes[0] (line 2)"
        ),
        InvalidFile("duplicate name", "routes:\n  - {path: /a, builtin: me}\n  - {path: /b, builtin: me}\n", line: 3, key: "routes[1].name", "'me' is also the name"),
        InvalidFile("unknown limit", "routes:\n  - {path: /a, upstream: 'http://h:1', rate_limit: apii}\n", line: 2, key: "routes[0].rate_limit", "names no configured limit"),
        InvalidFile(
            "limit without auth", "rate_limits:\n  api: {capacity: 1, period_seconds: 1}\nroutes:\n  - path: /a\n    upstream: http://h:1\n    auth: optional\n    rate_limit: api\n",
            line: 7, key: "routes[0].rate_limit", "needs auth: required (it has auth: optional)"
        ),
        InvalidFile("cost without limit", "routes:\n  - {path: /a, upstream: 'http://h:1', cost: 2}\n", line: 2, key: "routes[0].cost", "needs a rate_limit"),
        InvalidFile(
            "idempotency on healthz", "routes:\n  - path: /healthz\n    builtin: healthz\n    idempotency: optional\n", line: 4, key: "routes[0].idempotency",
            "idempotency applies to the functions and upstream routes, not to route healthz"
        ),
        InvalidFile("an unknown idempotency mode", "routes:\n  - {path: /s, builtin: story-generation, idempotency: always}\n", line: 2, key: "routes[0].idempotency", "must be one of off, optional, required"),
        InvalidFile("timeout on a builtin", "routes:\n  - {path: /a, builtin: me, timeout_seconds: 5}\n", line: 2, key: "routes[0].timeout_seconds", "upstream routes only"),
        InvalidFile("unknown method", "routes:\n  - path: /a\n    upstream: http://h:1\n    methods: [GET, FETCH]\n", line: 4, key: "routes[0].methods[1]", "must be one of GET"),
        InvalidFile("method a builtin does not answer", "routes:\n  - {path: /s, builtin: story-generation, methods: [GET]}\n", line: 2, key: "routes[0].methods[0]", "must be one of POST"),
        InvalidFile("unknown route key", "routes:\n  - {path: /a, upsteam: 'http://h:1'}\n", line: 2, key: "routes[0].upsteam", "did you mean 'upstream'?"),
        InvalidFile("empty table", "routes: []\n", line: 1, key: "routes", "is empty"),
        InvalidFile("no table at all", "builtin_routes: false\n", line: 1, key: "builtin_routes", "leaves no routes"),
    ]

    @Test("syntax, shape, duplicate and unknown keys", arguments: Self.syntaxCases)
    func syntax(_ file: InvalidFile) { Self.expectError(file) }

    @Test("wrong types", arguments: Self.typesCases)
    func types(_ file: InvalidFile) { Self.expectError(file) }

    @Test("out-of-range numbers", arguments: Self.rangesCases)
    func ranges(_ file: InvalidFile) { Self.expectError(file) }

    @Test("bad URLs, names and secrets", arguments: Self.valuesCases)
    func values(_ file: InvalidFile) { Self.expectError(file) }

    @Test("bad routes", arguments: Self.routesCases)
    func routes(_ file: InvalidFile) { Self.expectError(file) }

    static func expectError(_ file: InvalidFile, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try GatewayConfiguration(yaml: file.yaml, environment: ["ENV": "dev"])
            Issue.record("accepted: \(file.name)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.file == "storygate.yaml", sourceLocation: sourceLocation)
            #expect(error.line == file.line, "\(error)", sourceLocation: sourceLocation)
            #expect(error.variable == file.key, "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(file.phrase), "\(error)", sourceLocation: sourceLocation)
            let location = file.key.isEmpty ? "storygate.yaml:\(file.line): " : "storygate.yaml:\(file.line): \(file.key): "
            #expect(error.description.hasPrefix(location), "\(error)", sourceLocation: sourceLocation)
        }
    }
}
