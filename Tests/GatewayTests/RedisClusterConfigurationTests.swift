import CurlHTTP
import IDTokens
import Logging
import RateLimiting
import TestSupport
import Testing

@testable import Gateway
@testable import GatewayConfig

@Suite("Configuration: REDIS_CLUSTER and seed-node Redis URLs")
struct RedisClusterConfigurationTests {
    private static let base = ["ENV": "dev"]

    @Test("REDIS_CLUSTER=on with seed nodes after the scheme", arguments: ["on", "true", "1", "yes", "ON"])
    func clusterOn(value: String) throws {
        let url = "redis://:pw@10.0.0.1:6379,10.0.0.2:6379,10.0.0.3:6379"
        let configuration = try GatewayConfiguration(environment: Self.base.merging(["REDIS_CLUSTER": value, "REDIS_URL": url]) { $1 })
        #expect(configuration.redisCluster)
        #expect(configuration.redisURL == url)
    }

    @Test("off by default, and REDIS_CLUSTER=off")
    func clusterOff() throws {
        #expect(try !GatewayConfiguration(environment: Self.base).redisCluster)
        #expect(try !GatewayConfiguration(environment: Self.base.merging(["REDIS_CLUSTER": "off", "REDIS_URL": "redis://cache:6379/2"]) { $1 }).redisCluster)
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration(environment: Self.base.merging(["REDIS_CLUSTER": "maybe"]) { $1 }) }
    }

    @Test(
        "a URL that does not fit the mode names REDIS_URL and the expected forms, without echoing the password",
        arguments: [
            ("redis://:hunter2@a:6379,b:6379", "off", "several hosts"),  // seed nodes without cluster mode
            ("redis://:hunter2@a:6379,b:6379/2", "on", "database 0"),  // a cluster has no other database
            ("redis://:hunter2@a:6379,,b:6379", "on", "no host"),
            ("redis://:hunter2@a:6379,b:70000", "on", "host or port"),
            ("redis://:hunter2@a:6379,b:port", "on", "host or port"),
            ("rediss://:hunter2@a:6379,b:6379", "on", "redis://"),
            ("redis://:hunter2@", "on", "no host"),
        ]
    )
    func badForms(url: String, cluster: String, problem: String) {
        do {
            _ = try GatewayConfiguration(environment: Self.base.merging(["REDIS_URL": url, "REDIS_CLUSTER": cluster]) { $1 })
            Issue.record("\(url) was accepted with REDIS_CLUSTER=\(cluster)")
        } catch {
            #expect(error.variable == "REDIS_URL")
            #expect(error.description.contains(problem))
            #expect(error.description.contains("redis://[:password@]host:port[,host:port...]"))
            #expect(!error.description.contains("hunter2"))
        }
    }

    @Test("the config file's redis.cluster, shown by check-config")
    func configFile() throws {
        let yaml = """
            env: dev
            redis: {url: 'redis://:pw@a:7000,b:7001,c:7002', cluster: true}
            """
        let configuration = try GatewayConfiguration(yaml: yaml)
        #expect(configuration.redisCluster)
        #expect(configuration.redisURL == "redis://:pw@a:7000,b:7001,c:7002")
        let printed = try configuration.effectiveYAML()
        #expect(printed.contains("cluster: true"))
        #expect(printed.contains("redis://:<redacted>@a:7000,b:7001,c:7002"))
        #expect(try GatewayConfiguration(yaml: printed).redisCluster)

        // The environment goes over the file; seed nodes need cluster mode, wherever each was set.
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: yaml, environment: ["REDIS_CLUSTER": "off"]) }
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration(yaml: "env: dev\nredis: {cluster: maybe}\n") }
    }

    @Test("the gateway builds its store in cluster mode from the seed list")
    func applicationBuilds() throws {
        let configuration = try GatewayConfiguration(
            environment: Self.base.merging(["REDIS_CLUSTER": "on", "REDIS_URL": "redis://127.0.0.1:1,127.0.0.1:2"]) { $1 }
        )
        _ = try GatewayApplication(configuration: configuration, logger: .init(label: "test"))
    }

    @Test("two gateways with REDIS_CLUSTER=on share one limit exactly over a real three-primary cluster")
    func twoGatewaysOverACluster() async throws {
        try await withRedisCluster { cluster async throws in
            let configure: @Sendable (inout GatewayConfiguration) -> Void = {
                RateLimitEndToEndTests.dev(&$0)
                $0.redisURL = cluster.url
                $0.redisCluster = true
                // Exact counts need every check to reach Redis, never a local bucket: failing closed, a gateway is not
                // ready (and the harness waits) until it has read the cluster's slots and connected, and a check that
                // could not reach Redis would show as a 503, not as one more 200.
                $0.rateLimitFailurePolicy = .failClosed
                $0.redisTimeoutMilliseconds = 10000
            }
            try await GatewayHarness.run(configure: configure, extraRoutes: [RateLimitEndToEndTests.limitedRoute]) { first in
                try await GatewayHarness.run(configure: configure, extraRoutes: [RateLimitEndToEndTests.limitedRoute]) { second in
                    let responses = try await withThrowingTaskGroup(of: CurlResponse.self) { group in
                        for index in 0..<40 {
                            let gateway = index.isMultiple(of: 2) ? first : second
                            group.addTask { try await gateway.request("POST", "/test/limited", headers: [("X-User-Id", "cluster-kid")], body: []) }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    #expect(responses.filter { $0.status == 200 }.count == 10)
                    #expect(responses.filter { $0.status == 429 }.count == 30)
                    // The bucket is on the primary of its uid hash's slot, named by the hash, not the uid.
                    let key = "storygate:rl:story-generation:{\(UserHash.logIdentifier("cluster-kid"))}"
                    let owner = try cluster.owner(of: try cluster.slot(of: key))
                    #expect(try owner.cli("EXISTS", key) == "1")
                }
            }
        }
    }
}
