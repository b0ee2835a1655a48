import RateLimiting
import Testing

@testable import Gateway
@testable import GatewayConfig

@Suite("Effective configuration as YAML")
struct EffectiveYAMLTests {
    /// Every section set away from its default.
    static let rich = """
        env: dev
        log_level: debug
        access_log: false
        listen: {host: '::1', port: 0}
        firebase: {project_id: my-app-123, certs_url: 'http://127.0.0.1:9999/certs', clock_skew_seconds: 30, token_cache_size: 0}
        dev: {certs_dir: /etc/storygate/dev, allow_non_loopback: true}
        openai:
          base_url: http://127.0.0.1:8081/v1
          timeout_seconds: 90
          models: {text: gpt-5-mini, speech: tts-1, voice: 'yes', moderation: '1', image: gpt-image-1}
        rate_limits:
          story-generation: {capacity: 2.5, period_seconds: 0.5, shadow: true}
          api: {capacity: 100, period_seconds: 60}
        auth_failure_limit: off
        trusted_proxies: [10.0.0.0/8, '::1']
        redis: {url: 'redis://cache:6379/2', pool_size: 2, timeout_ms: 5, failure_policy: closed}
        idempotency: {ttl_seconds: 60, failure_policy: closed}
        jobs: {workers: 0, queue_max: 1, retention_seconds: 60, lease_seconds: 5}
        media_dir: 'null'
        server: {max_header_bytes: 2048, header_timeout_seconds: 0.25, shutdown_grace_seconds: 0}
        proxy: {identity_headers: [X-User-Id, X-Tenant], identity_assertion: {header: X-Identity, accept: false, max_age_seconds: 30}, connect_timeout_seconds: 1.5, idle_timeout_seconds: 2.5}
        routes:
          - {path: /functions/v1/story-generation, builtin: story-generation, rate_limit: story-generation, cost: 0.5, idempotency: required}
          - {path: /healthz, builtin: healthz, auth: none, methods: [GET]}
          - path: /api/
            upstream: https://[::1]:8443/base/
            methods: [GET, POST]
            auth: required
            rate_limit: api
            timeout_seconds: 2.5
            max_body_bytes: 100
            forward_authorization: true
            idempotency: optional
            name: api
        """

    @Test("the printed YAML loads back into an equal configuration", arguments: [Self.rich, "env: dev\n", ""])
    func roundTrip(_ yaml: String) throws {
        let configuration = try GatewayConfiguration(yaml: yaml, environment: ["ENV": "dev"])
        let printed = try configuration.effectiveYAML()
        let reloaded = try GatewayConfiguration(yaml: printed, fileName: "effective.yaml")
        #expect(reloaded == configuration, "\(printed)")
        #expect(try reloaded.effectiveYAML() == printed)
    }

    @Test("values YAML would read as another type are quoted")
    func quoting() throws {
        let printed = try GatewayConfiguration(yaml: Self.rich).effectiveYAML()
        #expect(printed.contains("voice: 'yes'"))
        #expect(printed.contains("moderation: '1'"))
        #expect(printed.contains("media_dir: 'null'"))
        #expect(printed.contains("auth_failure_limit: off"))
        #expect(printed.contains("methods: [GET, POST]"))
        #expect(printed.contains("upstream: https://[::1]:8443/base"))
        #expect(printed.contains("max_age_seconds: 30"))
        #expect(printed.contains("idle_timeout_seconds: 2.5"))
        #expect(printed.contains("idempotency: required"))
        #expect(printed.contains("lease_seconds: 5"))
    }

    @Test("secrets are redacted: the OpenAI key, the identity-assertion key, a Redis password")
    func secretsRedacted() throws {
        try withTemporaryFile(String(repeating: "A", count: 40)) { assertionFile in
            let configuration = try GatewayConfiguration(
                yaml: "env: dev\nproxy: {identity_assertion: {secret_file: '\(assertionFile)'}}\n",
                environment: ["OPENAI_API_KEY": "sk-very-secret", "REDIS_URL": "redis://admin:hunter2@cache:6379/0"]
            )
            let printed = try configuration.effectiveYAML()
            for secret in ["sk-very-secret", "hunter2", String(repeating: "A", count: 40)] {
                #expect(!printed.contains(secret))
            }
            #expect(printed.contains("api_key: <redacted>"))
            // A key read from a file prints as that file: not a secret, and the printed text keeps it.
            #expect(printed.contains("secret_file: \(assertionFile)"))
            #expect(printed.contains("url: redis://admin:<redacted>@cache:6379/0"))

            // It still loads back: the key from a file with it; the others are gone (the redacted Redis URL holds the
            // placeholder instead).
            var reloaded = try GatewayConfiguration(yaml: printed)
            #expect(reloaded.openAIAPIKey == nil)
            #expect(reloaded.proxy.assertionSecret == configuration.proxy.assertionSecret)
            reloaded.openAIAPIKey = configuration.openAIAPIKey
            reloaded.redisURL = configuration.redisURL
            #expect(reloaded == configuration)
        }
        let unset = try GatewayConfiguration(environment: ["ENV": "dev"]).effectiveYAML()
        #expect(unset.contains("api_key: unset"))
        #expect(unset.contains("secret: unset"))
    }

    @Test("an OpenAI key read from a file prints as openai.api_key_file, and the text loads back with the key")
    func keyFileRoundTrip() throws {
        try withTemporaryFile("sk-from-a-file\n") { path in
            let configuration = try GatewayConfiguration(environment: ["ENV": "dev", "OPENAI_API_KEY_FILE": path])
            let printed = try configuration.effectiveYAML()
            #expect(!printed.contains("sk-from-a-file"))
            #expect(printed.contains("api_key_file: \(path)"))
            #expect(try GatewayConfiguration(yaml: printed).openAIAPIKey?.value == "sk-from-a-file")
        }
    }

    @Test("a Redis URL's password is replaced, with or without a user", arguments: [
        ("redis://:pw@cache:6379", "redis://:<redacted>@cache:6379"),
        ("redis://user:pw@cache:6379/1", "redis://user:<redacted>@cache:6379/1"),
        ("redis://pw@cache", "redis://pw:<redacted>@cache"),
        ("redis://cache:6379", "redis://cache:6379"),
    ])
    func redisRedaction(url: String, redacted: String) {
        #expect(GatewayConfiguration.redactingPassword(url) == redacted)
    }

    @Test("secrets never appear in errors", arguments: [
        "openai:\n  api_key: sk-leak-me\n",
        "redis:\n  url: 'rediss://:sk-leak-me@cache:6379'\n",
        "proxy:\n  identity_assertion: {secret: sk-leak-me}\n",
        "routes:\n  - {path: /a, upstream: 'http://u:sk-leak-me@h:1'}\n",
        "openai:\n  base_url: 'https://u:sk-leak-me@h /v1'\n",
    ])
    func secretsNotInErrors(_ yaml: String) {
        do {
            _ = try GatewayConfiguration(yaml: yaml, environment: ["ENV": "dev"])
            Issue.record("accepted")
        } catch {
            #expect(!error.description.contains("sk-leak-me"), "\(error)")
            #expect(error.line != nil)
        }
    }
}
