/// Every config-file key and environment variable of `storygate serve`: its accepted values, meaning and default.
/// `storygate check-config --reference` prints it as the table in docs/configuration.md, and a test checks that the
/// document, this table and the keys and variables the readers accept agree. (The route keys are on
/// `RouteConfiguration`.)
public enum ConfigurationReference {
    public struct Entry: Sendable, Equatable {
        /// The dotted file key (`firebase.project_id`), or keys separated by ", "; empty for a variable with no key.
        public var key: String
        /// The environment variables that set it; empty for a key with no variable.
        public var variables: [String]
        /// The accepted values and what the setting does.
        public var meaning: String
        public var defaultValue: String

        public var keys: [String] { self.key.split(separator: ",").map { $0.trimmingCharacters(in: " ") } }
    }

    public static let entries: [Entry] = [
        Entry(key: "", variables: ["STORYGATE_CONFIG"], meaning: "the config file when `--config` is not given", defaultValue: "none"),
        Entry(key: "env", variables: ["ENV"], meaning: "`prod` or `dev` (dev: `X-User-Id` and the dev certificate are trusted; loopback only)", defaultValue: "`prod`"),
        Entry(key: "log_level", variables: ["LOG_LEVEL"], meaning: "`trace`, `debug`, `info`, `notice`, `warning`, `error`, `critical`", defaultValue: "`info`"),
        Entry(key: "access_log", variables: ["ACCESS_LOG"], meaning: "boolean: one JSON line per request on standard error", defaultValue: "`true`"),
        Entry(key: "listen.host", variables: ["HOST"], meaning: "the address to bind (flag `--host`)", defaultValue: "`127.0.0.1`"),
        Entry(key: "listen.port", variables: ["PORT"], meaning: "0 to 65535, 0 picks a free port (flag `--port`)", defaultValue: "`8080`"),
        Entry(
            key: "admin.host", variables: ["ADMIN_HOST"], meaning: "the admin listener's address (`/metrics`, `/healthz`, `/readyz`, `/config`)",
            defaultValue: "`127.0.0.1`"
        ),
        Entry(key: "admin.port", variables: ["ADMIN_PORT"], meaning: "0 to 65535 (0 picks a free port), or `off`: no admin listener", defaultValue: "`9901`"),
        Entry(
            key: "firebase.project_id", variables: ["FIREBASE_PROJECT_ID"], meaning: "the Firebase project whose ID tokens are accepted",
            defaultValue: "none; required in prod"
        ),
        Entry(
            key: "firebase.certs_url", variables: ["FIREBASE_CERTS_URL"],
            meaning: "Google's x509 certificate endpoint: https (http only to a loopback host), no user info",
            defaultValue: "`https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com`"
        ),
        Entry(
            key: "firebase.clock_skew_seconds", variables: ["CLOCK_SKEW_SECONDS"], meaning: "0 to 60: tolerance for `exp`, `iat`, `auth_time`, `nbf`",
            defaultValue: "`0` (as the Firebase Admin SDK)"
        ),
        Entry(key: "firebase.token_cache_size", variables: ["TOKEN_CACHE_SIZE"], meaning: "0 to 10000000 verified tokens kept (0: no cache)", defaultValue: "`10000`"),
        Entry(
            key: "firebase.revocation.check", variables: ["REVOCATION_CHECK"],
            meaning: "`off` or `on`: refuse revoked sessions (403 `TOKEN_REVOKED`), disabled (403 `USER_DISABLED`) and deleted (401) users; `on` needs `google.credentials_file`",
            defaultValue: "`off`"
        ),
        Entry(
            key: "firebase.revocation.max_age_seconds", variables: ["REVOCATION_MAX_AGE_SECONDS"],
            meaning: "1 to 86400: how long a user's looked-up state is used, the bound on how late a revocation takes effect", defaultValue: "`300`"
        ),
        Entry(
            key: "firebase.revocation.failure_policy", variables: ["REVOCATION_FAILURE_POLICY"],
            meaning: "`open` (Google unreachable: the last known state, however old; a user never looked up passes) or `closed` (503 `UNAVAILABLE` without a fresh state)",
            defaultValue: "`open`"
        ),
        Entry(
            key: "firebase.identity_toolkit_url", variables: ["IDENTITY_TOOLKIT_URL"],
            meaning: "Identity Toolkit's base URL for `accounts:lookup`: https (http only to a loopback host), no user info",
            defaultValue: "`https://identitytoolkit.googleapis.com`"
        ),
        Entry(
            key: "google.credentials_file", variables: ["GOOGLE_APPLICATION_CREDENTIALS"],
            meaning: "a service-account JSON key file, read at start (`check-config` shows the path, never the key); its `token_uri` https (http only to loopback)",
            defaultValue: "none; required with `firebase.revocation.check: on` or a route with `app_check_consume` (App Check on)"
        ),
        Entry(
            key: "admin.token_file", variables: ["ADMIN_TOKEN_FILE"],
            meaning: "a file with the bearer secret of `POST /admin/v1/revocations`, at least 16 bytes", defaultValue: "none: the admin route does not exist"
        ),
        Entry(
            key: "firebase.project_number", variables: ["FIREBASE_PROJECT_NUMBER"], meaning: "the Firebase project number (digits): `iss` and `aud` of App Check tokens",
            defaultValue: "none; required when App Check is on (prod)"
        ),
        Entry(
            key: "firebase.app_check.mode", variables: ["APP_CHECK"],
            meaning: "`off`, `monitor` (verify, count, log, never refuse) or `enforce` (401 `APP_CHECK_FAILED`): the `X-Firebase-AppCheck` header; routes may override it",
            defaultValue: "`off`"
        ),
        Entry(
            key: "firebase.app_check.app_ids", variables: ["APP_CHECK_APP_IDS"], meaning: "list (comma-separated in the variable) of the Firebase app ids accepted",
            defaultValue: "empty: any app of the project"
        ),
        Entry(
            key: "firebase.app_check.jwks_url", variables: ["APP_CHECK_JWKS_URL"], meaning: "App Check's JWKS: https (http only to a loopback host), no user info",
            defaultValue: "`https://firebaseappcheck.googleapis.com/v1/jwks`"
        ),
        Entry(
            key: "firebase.app_check.api_url", variables: ["APP_CHECK_API_URL"],
            meaning: "the App Check API for `app_check_consume` routes: https (http only to a loopback host), no user info",
            defaultValue: "`https://firebaseappcheck.googleapis.com`"
        ),
        Entry(key: "dev.certs_dir", variables: ["DEV_CERTS_DIR"], meaning: "the dev key and certificate directory (dev mode only)", defaultValue: "`certs/dev`"),
        Entry(key: "dev.allow_non_loopback", variables: ["DEV_ALLOW_NON_LOOPBACK"], meaning: "boolean: let dev mode bind beyond loopback", defaultValue: "`false`"),
        Entry(
            key: "openai.api_key_file", variables: ["OPENAI_API_KEY", "OPENAI_API_KEY_FILE"],
            meaning: "the OpenAI key, or a file holding it (never inline in the file)", defaultValue: "none: offline provider in dev, refused in prod"
        ),
        Entry(
            key: "openai.base_url", variables: ["OPENAI_BASE_URL"], meaning: "https URL (http only to a loopback host, e.g. `storygate mock-openai`)",
            defaultValue: "`https://api.openai.com/v1`"
        ),
        Entry(
            key: "openai.timeout_seconds", variables: ["OPENAI_TIMEOUT_SECONDS"], meaning: "1 to 600: one deadline for every OpenAI call, retries included",
            defaultValue: "per call kind: chat 120, speech 60, images 120, moderation 15"
        ),
        Entry(key: "openai.models.text", variables: ["OPENAI_MODEL_TEXT"], meaning: "model for stories and scene extraction", defaultValue: "`gpt-5`"),
        Entry(key: "openai.models.speech", variables: ["OPENAI_MODEL_SPEECH"], meaning: "model for narration", defaultValue: "`gpt-4o-mini-tts`"),
        Entry(key: "openai.models.voice", variables: ["OPENAI_SPEECH_VOICE"], meaning: "the voice when a request names none", defaultValue: "`coral`"),
        Entry(key: "openai.models.moderation", variables: ["OPENAI_MODEL_MODERATION"], meaning: "model that checks user-written text", defaultValue: "`omni-moderation-latest`"),
        Entry(key: "openai.models.image", variables: ["OPENAI_MODEL_IMAGE"], meaning: "model for avatars and illustrations", defaultValue: "`gpt-image-2.5-flare`"),
        Entry(
            key: "rate_limits.<name>", variables: ["RATE_LIMIT_<NAME>"],
            meaning:
                "`{capacity, period_seconds, shadow}`; the variable: `<count>/<seconds>`, optionally followed by ` shadow` (NAME upper-cased, `-` → `_`). A name of a default limit replaces it, a new name adds one",
            defaultValue: "the five function limits, see [rate-limits.md](rate-limits.md)"
        ),
        Entry(key: "", variables: ["RATE_LIMIT_SHADOW"], meaning: "`all`, or a comma list of limit names to count and report but never reject", defaultValue: "none"),
        Entry(
            key: "auth_failure_limit", variables: ["AUTH_FAILURE_LIMIT"],
            meaning: "per client address, unauthenticated and failed-auth requests: `{capacity, period_seconds}` (`<count>/<seconds>`) or `off`",
            defaultValue: "`20/60`"
        ),
        Entry(key: "trusted_proxies", variables: ["TRUSTED_PROXIES"], meaning: "list (comma list) of IPs/CIDRs whose `X-Forwarded-For` is believed", defaultValue: "none"),
        Entry(
            key: "redis.url", variables: ["REDIS_URL"],
            meaning: "`redis://[:password@]host:port[/db]`: share rate limits across gateways; with `redis.cluster`, seed nodes `redis://[:password@]host1:6379,host2:6379`",
            defaultValue: "none (in memory)"
        ),
        Entry(key: "redis.cluster", variables: ["REDIS_CLUSTER"], meaning: "boolean (`on`/`off`): `redis.url` names Redis Cluster nodes", defaultValue: "`false`"),
        Entry(key: "redis.pool_size", variables: ["REDIS_POOL_SIZE"], meaning: "1 to 64 connections (per primary with a cluster)", defaultValue: "`4`"),
        Entry(key: "redis.timeout_ms", variables: ["REDIS_TIMEOUT_MS"], meaning: "1 to 10000: time limit of one rate-limit check", defaultValue: "`50`"),
        Entry(
            key: "redis.failure_policy", variables: ["RATE_LIMIT_FAILURE_POLICY"],
            meaning: "when Redis fails: `open` (this gateway's own buckets, a warning) or `closed` (503)", defaultValue: "`open`"
        ),
        Entry(
            key: "idempotency.ttl_seconds", variables: ["IDEMPOTENCY_TTL_SECONDS"],
            meaning: "1 to 2592000: how long a 2xx answer under an `Idempotency-Key` is kept and replayed, see [Idempotency and jobs](#idempotency-and-jobs)",
            defaultValue: "`86400`"
        ),
        Entry(
            key: "idempotency.failure_policy", variables: ["IDEMPOTENCY_FAILURE_POLICY"],
            meaning: "when the idempotency store is unreachable: `open` (the request runs without the guarantee, counted) or `closed` (503)",
            defaultValue: "`open`"
        ),
        Entry(key: "jobs.workers", variables: ["JOB_WORKERS"], meaning: "0 to 256 jobs run at once by this replica (0: it only creates jobs)", defaultValue: "`4`"),
        Entry(key: "jobs.queue_max", variables: ["JOB_QUEUE_MAX"], meaning: "1 to 1000000 queued jobs; creating one more is 503 `QUEUE_FULL`", defaultValue: "`1000`"),
        Entry(
            key: "jobs.retention_seconds", variables: ["JOB_RETENTION_SECONDS"], meaning: "60 to 2592000: how long a job and its result are kept after it is created",
            defaultValue: "`86400`"
        ),
        Entry(
            key: "jobs.lease_seconds", variables: ["JOB_LEASE_SECONDS"],
            meaning: "5 to 3600: a running job's lease, renewed while it runs; once it lapses (its replica died) another replica takes the job",
            defaultValue: "`30`"
        ),
        Entry(key: "media_dir, media.dir", variables: ["MEDIA_DIR"], meaning: "where the file store keeps generated audio and images", defaultValue: "`./data/media`"),
        Entry(key: "media.store", variables: ["MEDIA_STORE"], meaning: "`file` (under `media_dir`) or `s3` (a bucket every replica shares)", defaultValue: "`file`"),
        Entry(
            key: "media.delivery", variables: ["MEDIA_DELIVERY"], meaning: "`proxy` (the gateway streams) or `redirect` (302 to a presigned URL; `s3` only)",
            defaultValue: "`proxy`"
        ),
        Entry(key: "media.url_ttl_seconds", variables: ["MEDIA_URL_TTL_SECONDS"], meaning: "1 to 604800: how long a presigned URL is valid", defaultValue: "`900`"),
        Entry(key: "media.s3.endpoint", variables: ["S3_ENDPOINT"], meaning: "`https://host[:port]` of the S3 API, no path (http only to a loopback host)", defaultValue: "none; required with `s3`"),
        Entry(key: "media.s3.bucket", variables: ["S3_BUCKET"], meaning: "3 to 63 lowercase letters, digits, dots, hyphens", defaultValue: "none; required with `s3`"),
        Entry(key: "media.s3.region", variables: ["S3_REGION"], meaning: "letters, digits, hyphens (`auto` for R2 and Cloud Storage)", defaultValue: "`us-east-1`"),
        Entry(key: "media.s3.prefix", variables: ["S3_PREFIX"], meaning: "prepended to every object name, ending in `/`", defaultValue: "none"),
        Entry(key: "media.s3.addressing", variables: ["S3_ADDRESSING"], meaning: "`virtual` (`bucket.host`) or `path` (`host/bucket`)", defaultValue: "`virtual`"),
        Entry(
            key: "media.s3.credentials_file", variables: ["S3_CREDENTIALS_FILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"],
            meaning: "the bucket's key pair: a file (`NAME=value` lines, an `~/.aws/credentials` profile, or id and secret on two lines), or the two variables",
            defaultValue: "none; required with `s3`"
        ),
        Entry(key: "server.max_header_bytes", variables: [], meaning: "1024 to 1048576: all header lines together (431 above)", defaultValue: "`32768`"),
        Entry(key: "server.max_header_count", variables: [], meaning: "1 to 1000 header fields (431 above)", defaultValue: "`100`"),
        Entry(key: "server.max_body_bytes", variables: ["MAX_BODY_BYTES"], meaning: "0 to 1073741824: body limit of routes that set none (413 above)", defaultValue: "`10485760`"),
        Entry(key: "server.header_timeout_seconds", variables: [], meaning: "0.1 to 3600: a whole request head must arrive within this", defaultValue: "`10`"),
        Entry(key: "server.body_timeout_seconds", variables: [], meaning: "0.1 to 3600: the longest pause in a request body (408 above)", defaultValue: "`30`"),
        Entry(key: "server.idle_timeout_seconds", variables: [], meaning: "0.1 to 3600: an idle keep-alive connection is closed after this", defaultValue: "`75`"),
        Entry(key: "server.max_connections", variables: ["MAX_CONNECTIONS"], meaning: "1 to 1000000 open client connections; more wait in the backlog", defaultValue: "`20000`"),
        Entry(
            key: "server.shutdown_grace_seconds", variables: ["SHUTDOWN_GRACE_SECONDS"], meaning: "0 to 3600: on SIGTERM, how long requests in flight may take",
            defaultValue: "`25`"
        ),
        Entry(key: "proxy.identity_headers", variables: [], meaning: "header names removed from every client request", defaultValue: "`[X-User-Id]`"),
        Entry(key: "proxy.identity_assertion.header", variables: [], meaning: "carries the signed identity to upstreams", defaultValue: "`X-StoryGate-Identity`"),
        Entry(
            key: "proxy.identity_assertion.secret_file", variables: ["IDENTITY_ASSERTION_SECRET_FILE"], meaning: "a file with the HMAC key, at least 32 bytes",
            defaultValue: "none: no assertions"
        ),
        Entry(
            key: "proxy.identity_assertion.accept", variables: ["IDENTITY_ASSERTION_ACCEPT"],
            meaning: "boolean, with a key: an incoming assertion is a credential here (`false` at an edge that only signs)", defaultValue: "`true`"
        ),
        Entry(key: "proxy.identity_assertion.max_age_seconds", variables: [], meaning: "1 to 3600: how old an incoming assertion may be", defaultValue: "`60`"),
        Entry(key: "proxy.connect_timeout_seconds", variables: [], meaning: "0.1 to 600: connecting to an upstream", defaultValue: "`5`"),
        Entry(key: "proxy.max_connections_per_upstream", variables: [], meaning: "1 to 10000 pooled connections per upstream and event loop", defaultValue: "`64`"),
        Entry(key: "proxy.idle_timeout_seconds", variables: [], meaning: "0.1 to 3600: a pooled upstream connection idle this long is closed", defaultValue: "`60`"),
        Entry(key: "builtin_routes", variables: [], meaning: "boolean: keep the built-in routes and let `routes` add to them", defaultValue: "`false`"),
        Entry(key: "routes", variables: [], meaning: "the route table, see [Routes](#routes)", defaultValue: "the built-in table"),
    ]

    /// Settings of earlier versions: still accepted, ignored, and named in a warning at start (every request takes
    /// the one edge path they used to choose between).
    public static let removed: [(key: String, variable: String)] = [
        ("server.direct_path", "DIRECT_PATH"),
        ("server.raw_path", "RAW_PATH"),
    ]

    /// Every file key named in the table.
    public static var keys: [String] { self.entries.flatMap(\.keys) }

    /// Every variable named in the table (`RATE_LIMIT_<NAME>` as written).
    public static var variables: Set<String> { Set(self.entries.flatMap(\.variables)) }

    /// The table as Markdown: a header row, then one row per entry.
    public static var markdown: String {
        var lines = ["| file key | variable | value | default |", "|---|---|---|---|"]
        for entry in self.entries {
            let key = entry.keys.map { "`\($0)`" }.joined(separator: ", ")
            let variables = entry.variables.map { "`\($0)`" }.joined(separator: ", ")
            lines.append("| \(key) | \(variables) | \(entry.meaning) | \(entry.defaultValue) |")
        }
        let removed = self.removed.map { "`\($0.key)` (`\($0.variable)`)" }.joined(separator: ", ")
        lines += ["", "Removed, accepted and ignored with a warning at start: \(removed)."]
        return lines.joined(separator: "\n") + "\n"
    }
}
