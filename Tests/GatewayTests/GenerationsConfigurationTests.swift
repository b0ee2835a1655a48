import Foundation
import Testing

@testable import Gateway
@testable import GatewayConfig

/// `idempotency:`, `jobs:` and a route's `idempotency:`: defaults, the variables, the file, their order and their
/// errors.
@Suite("Configuration: idempotency and jobs")
struct GenerationsConfigurationTests {
    static let base = ["ENV": "dev"]

    static func environment(_ values: [String: String]) -> [String: String] {
        Self.base.merging(values) { $1 }
    }

    /// Sets every key away from its default.
    static let file = """
        env: dev
        idempotency: {ttl_seconds: 600, failure_policy: closed}
        jobs:
          workers: 0
          queue_max: 50
          retention_seconds: 3600
          lease_seconds: 10
        """

    @Test("the defaults: a day's answers, open, 4 workers, 1000 queued, a day's jobs, a 30 s lease")
    func defaults() throws {
        let configuration = try GatewayConfiguration(environment: Self.base)
        #expect(configuration.idempotency == IdempotencySettings())
        #expect(configuration.idempotency.ttlSeconds == 86_400)
        #expect(configuration.idempotency.failurePolicy == .open)
        #expect(configuration.jobs == JobSettings())
        #expect(configuration.jobs.workers == 4)
        #expect(configuration.jobs.queueMax == 1_000)
        #expect(configuration.jobs.retentionSeconds == 86_400)
        #expect(configuration.jobs.leaseSeconds == 30)
        #expect(try GatewayConfiguration(yaml: "idempotency:\njobs:\n", environment: Self.base) == configuration, "an empty section keeps the defaults")
    }

    @Test("the variables set every value")
    func fromEnvironment() throws {
        let configuration = try GatewayConfiguration(environment: Self.environment([
            "IDEMPOTENCY_TTL_SECONDS": "2592000", "IDEMPOTENCY_FAILURE_POLICY": "closed", "JOB_WORKERS": "256", "JOB_QUEUE_MAX": "1",
            "JOB_RETENTION_SECONDS": "60", "JOB_LEASE_SECONDS": "3600",
        ]))
        #expect(configuration.idempotency.ttlSeconds == 2_592_000)
        #expect(configuration.idempotency.failurePolicy == .closed)
        #expect(configuration.jobs.workers == 256)
        #expect(configuration.jobs.queueMax == 1)
        #expect(configuration.jobs.retentionSeconds == 60)
        #expect(configuration.jobs.leaseSeconds == 3600)
    }

    @Test("the file sets every value")
    func fromFile() throws {
        let configuration = try GatewayConfiguration(yaml: Self.file)
        #expect(configuration.idempotency.ttlSeconds == 600)
        #expect(configuration.idempotency.failurePolicy == .closed)
        #expect(configuration.jobs.workers == 0)
        #expect(configuration.jobs.queueMax == 50)
        #expect(configuration.jobs.retentionSeconds == 3600)
        #expect(configuration.jobs.leaseSeconds == 10)
    }

    @Test("a variable overrides the file's value; an unset or empty one keeps it")
    func environmentOverridesFile() throws {
        let configuration = try GatewayConfiguration(yaml: Self.file, environment: [
            "IDEMPOTENCY_FAILURE_POLICY": "open", "JOB_WORKERS": "2", "JOB_LEASE_SECONDS": "", "IDEMPOTENCY_TTL_SECONDS": "1",
        ])
        #expect(configuration.idempotency.ttlSeconds == 1)
        #expect(configuration.idempotency.failurePolicy == .open)
        #expect(configuration.jobs.workers == 2)
        #expect(configuration.jobs.queueMax == 50, "not set in the environment: the file's value")
        #expect(configuration.jobs.retentionSeconds == 3600)
        #expect(configuration.jobs.leaseSeconds == 10, "empty counts as unset")
    }

    @Test(
        "a value out of bounds, or not a whole number, names its variable and the bounds",
        arguments: [
            ("IDEMPOTENCY_TTL_SECONDS", "0", "1 to 2592000"), ("IDEMPOTENCY_TTL_SECONDS", "2592001", "1 to 2592000"),
            ("IDEMPOTENCY_TTL_SECONDS", "1d", "1 to 2592000"),
            ("JOB_WORKERS", "-1", "0 to 256"), ("JOB_WORKERS", "257", "0 to 256"), ("JOB_WORKERS", "2.5", "0 to 256"),
            ("JOB_QUEUE_MAX", "0", "1 to 1000000"), ("JOB_QUEUE_MAX", "1000001", "1 to 1000000"),
            ("JOB_RETENTION_SECONDS", "59", "60 to 2592000"), ("JOB_RETENTION_SECONDS", "2592001", "60 to 2592000"),
            ("JOB_LEASE_SECONDS", "4", "5 to 3600"), ("JOB_LEASE_SECONDS", "3601", "5 to 3600"), ("JOB_LEASE_SECONDS", "thirty", "5 to 3600"),
        ]
    )
    func outOfBounds(variable: String, value: String, bounds: String) throws {
        let error = try #require(throws: ConfigurationError.self) { try GatewayConfiguration(environment: Self.environment([variable: value])) }
        #expect(error.all.count == 1)
        #expect(error.variable == variable)
        #expect(error.description == "\(variable) must be a whole number from \(bounds), not '\(value)'")
    }

    @Test("a failure policy other than open or closed names the variable, or the key with the closest policy")
    func badPolicy() throws {
        let fromEnvironment = try #require(throws: ConfigurationError.self) {
            try GatewayConfiguration(environment: Self.environment(["IDEMPOTENCY_FAILURE_POLICY": "fail-open"]))
        }
        #expect(fromEnvironment.description == "IDEMPOTENCY_FAILURE_POLICY must be one of open, closed, not 'fail-open'")
        let fromFile = try #require(throws: ConfigurationError.self) {
            try GatewayConfiguration(yaml: "idempotency:\n  failure_policy: clsed\n", environment: Self.base)
        }
        #expect(fromFile.description == "storygate.yaml:2: idempotency.failure_policy: must be one of open, closed, not 'clsed' (did you mean 'closed'?)")
    }

    @Test("every bad variable of a run is reported, with the others' problems")
    func everyProblemAtOnce() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try GatewayConfiguration(environment: Self.environment([
                "IDEMPOTENCY_TTL_SECONDS": "0", "IDEMPOTENCY_FAILURE_POLICY": "maybe", "JOB_WORKERS": "x", "JOB_QUEUE_MAX": "0",
                "JOB_RETENTION_SECONDS": "1", "JOB_LEASE_SECONDS": "1", "PORT": "x",
            ]))
        }
        #expect(Set(error.all.map(\.variable)) == [
            "IDEMPOTENCY_TTL_SECONDS", "IDEMPOTENCY_FAILURE_POLICY", "JOB_WORKERS", "JOB_QUEUE_MAX", "JOB_RETENTION_SECONDS", "JOB_LEASE_SECONDS", "PORT",
        ])
        #expect(error.all.count == 7, "\(error)")
    }

    @Test("the file's keys are checked: bounds at the line, a misspelt key with the closest one, every section's problem")
    func fileErrors() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try GatewayConfiguration(yaml: "idempotency:\n  ttl: 60\njobs:\n  lease_seconds: 4\n", environment: Self.base)
        }
        #expect(error.all.map(\.description) == [
            "storygate.yaml:2: idempotency.ttl: unknown key (did you mean 'ttl_seconds'?); allowed here: ttl_seconds, failure_policy",
            "storygate.yaml:4: jobs.lease_seconds: must be a whole number from 5 to 3600, not '4'",
        ])
        let misspelt = try #require(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: "job:\n  workers: 2\n", environment: Self.base) }
        #expect(misspelt.message.hasPrefix("unknown key (did you mean 'jobs'?)"))
    }

    @Test("the default per target: optional on the five functions, off on every other route")
    func routeDefaults() throws {
        for route in RouteConfiguration.defaults {
            #expect(route.idempotency == nil)
            let isFunction = BuiltinHandler.functions.map { RouteConfiguration.Target.builtin($0) }.contains(route.target)
            #expect(route.idempotencyMode == (isFunction ? .optional : .off), "\(route.name)")
        }
        let upstream = RouteConfiguration(path: .prefix("/api/"), target: .upstream(try #require(UpstreamURL("http://127.0.0.1:9"))))
        #expect(upstream.idempotencyMode == .off)
        #expect(RouteConfiguration(path: .exact("/s"), target: .builtin(.storyGeneration), idempotency: .required).idempotencyMode == .required)
    }

    @Test("a route's idempotency is read; a value equal to the target's default is stored as nil")
    func routeValues() throws {
        let configuration = try GatewayConfiguration(yaml: """
            routes:
              - {path: /s, builtin: story-generation, idempotency: required}
              - {path: /e, builtin: extract-scenes, idempotency: optional}
              - {path: /a, builtin: audio-synthesis, idempotency: off}
              - {path: /u/, upstream: 'http://127.0.0.1:9', idempotency: optional}
              - {path: /v/, upstream: 'http://127.0.0.1:9', idempotency: 'off'}
              - {path: /w/, upstream: 'http://127.0.0.1:9'}
              - {path: /h, builtin: healthz, auth: none, idempotency: 'off'}
            """, environment: Self.base)
        #expect(configuration.routes.map(\.idempotency) == [.required, nil, .off, .optional, nil, nil, nil])
        #expect(configuration.routes.map(\.idempotencyMode) == [.required, .optional, .off, .optional, .off, .off, .off])
    }

    @Test("anything but off on a built-in other than the five functions is an error naming the route", arguments: [
        ("  - {path: /v1/me, builtin: me, idempotency: optional}\n", "route me (builtin: me)"),
        ("  - {path: /healthz, builtin: healthz, auth: none, idempotency: required}\n", "route healthz (builtin: healthz)"),
        ("  - {path: /files/, builtin: media, auth: none, name: files, idempotency: required}\n", "route files (builtin: media)"),
    ])
    func notOnOtherBuiltins(entry: String, route: String) throws {
        let error = try #require(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: "routes:\n" + entry, environment: Self.base) }
        #expect(error.all.count == 1)
        #expect(error.line == 2)
        #expect(error.variable == "routes[0].idempotency")
        #expect(error.message == "idempotency applies to the functions and upstream routes, not to \(route): leave it out, or set it to off")
    }

    @Test("an upstream route that keeps answers needs auth: required, in the file and in code")
    func upstreamNeedsAuthentication() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try GatewayConfiguration(yaml: "routes:\n  - {path: /u/, upstream: 'http://127.0.0.1:9', auth: optional, idempotency: optional}\n", environment: Self.base)
        }
        #expect(error.line == 2)
        #expect(error.variable == "routes[0].idempotency")
        #expect(error.message == "keeps answers per user, so the route needs auth: required (it has auth: optional)")
        var configuration = try GatewayConfiguration(environment: Self.base)
        configuration.routes.append(
            RouteConfiguration(path: .prefix("/u/"), target: .upstream(UpstreamURL("http://127.0.0.1:9")!), auth: .none, idempotency: .required)
        )
        let inCode = try #require(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(inCode.message.contains("keeps answers per user (idempotency: required), so it needs auth: required"), "\(inCode.message)")
    }

    @Test("an unknown mode lists the three, with the closest")
    func unknownMode() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try GatewayConfiguration(yaml: "routes:\n  - {path: /s, builtin: story-generation, idempotency: requird}\n", environment: Self.base)
        }
        #expect(error.description == "storygate.yaml:2: routes[0].idempotency: must be one of off, optional, required, not 'requird' (did you mean 'required'?)")
        #expect(throws: ConfigurationError.self) {
            try GatewayConfiguration(yaml: "routes:\n  - {path: /s, builtin: story-generation, idempotency: true}\n", environment: Self.base)
        }
    }

    @Test("a table built in code is held to the same rule when validated")
    func validatedInCode() throws {
        var configuration = try GatewayConfiguration(environment: Self.base)
        let healthz = try #require(configuration.routes.firstIndex { $0.name == "healthz" })
        configuration.routes[healthz].idempotency = .required
        let error = try #require(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(error.variable == "routes")
        #expect(error.message.hasPrefix("route healthz has idempotency: required, but idempotency applies to the functions and upstream routes"))
        configuration.routes[healthz].idempotency = .off
        try configuration.validate()
    }

    @Test("check-config shows both sections and each route's mode where it applies, and the text loads back")
    func effectiveYAML() throws {
        let defaults = try GatewayConfiguration(environment: Self.base).effectiveYAML()
        #expect(defaults.contains("idempotency:\n  ttl_seconds: 86400\n  failure_policy: open\n"), "\(defaults)")
        #expect(defaults.contains("jobs:\n  workers: 4\n  queue_max: 1000\n  retention_seconds: 86400\n  lease_seconds: 30\n"), "\(defaults)")

        let configuration = try GatewayConfiguration(yaml: Self.file + """

            routes:
              - {path: /s, builtin: story-generation, idempotency: required}
              - {path: /e, builtin: extract-scenes}
              - {path: /u/, upstream: 'http://127.0.0.1:9'}
              - {path: /h, builtin: healthz, auth: none}
            """, environment: ["JOB_QUEUE_MAX": "70"])
        let printed = try configuration.effectiveYAML()
        #expect(printed.contains("idempotency:\n  ttl_seconds: 600\n  failure_policy: closed\n"), "\(printed)")
        #expect(printed.contains("jobs:\n  workers: 0\n  queue_max: 70\n  retention_seconds: 3600\n  lease_seconds: 10\n"), "\(printed)")
        let routes = try #require(printed.range(of: "\nroutes:\n")).upperBound
        let entries = printed[routes...].components(separatedBy: "\n- ")
        #expect(entries.count == 4)
        #expect(entries[0].contains("idempotency: required"))
        #expect(entries[1].contains("idempotency: optional"))
        #expect(entries[2].contains("idempotency: 'off'"))
        #expect(!entries[3].contains("idempotency"), "a route it does not apply to shows none")
        let reloaded = try GatewayConfiguration(yaml: printed, fileName: "effective.yaml")
        #expect(reloaded == configuration)
    }

    @Test("the example in docs/configuration.md loads")
    func documentedExample() throws {
        let document = try String(contentsOfFile: GatewayHarness.repositoryRoot + "/docs/configuration.md", encoding: .utf8)
        let section = try #require(document.range(of: "## Idempotency and jobs"))
        let start = try #require(document.range(of: "```yaml\n", range: section.upperBound..<document.endIndex))
        let end = try #require(document.range(of: "```", range: start.upperBound..<document.endIndex))
        let configuration = try GatewayConfiguration(yaml: String(document[start.upperBound..<end.lowerBound]), environment: Self.base)
        #expect(configuration.idempotency.failurePolicy == .closed)
        #expect(configuration.jobs.workers == 8)
        #expect(configuration.routes.first { $0.name == "story-generation" }?.idempotencyMode == .required)
        #expect(configuration.routes.first { $0.path == .prefix("/orders/") }?.idempotencyMode == .optional)
    }
}
