import Foundation
import Gateway
import GatewayConfig
import Testing

/// deploy/Dockerfile, deploy/docker-compose.yml and deploy/nginx.conf: what the issue asks of the image, and the
/// compose fleet's pieces pointing at each other. (No Docker engine runs here: these are static checks.)
@Suite struct ContainerTests {
    let dockerfile: Dockerfile
    let compose: YAMLValue

    init() throws {
        self.dockerfile = Dockerfile(try Repository.text("deploy/Dockerfile"))
        self.compose = try Repository.yaml("deploy/docker-compose.yml")
    }

    // MARK: Dockerfile

    /// Two stages: a Swift 6 builder on Debian 12 (bookworm), a bookworm-slim runtime.
    @Test func buildsOnSwift6BookwormAndRunsOnBookwormSlim() throws {
        #expect(self.dockerfile.stageCount == 2)
        let froms = self.dockerfile.all("FROM").map(\.arguments)
        let arguments = self.dockerfile.globalArguments
        func image(_ from: String) -> String {
            let reference = String(from.split(separator: " ").first ?? "")
            guard reference.hasPrefix("${"), reference.hasSuffix("}") else { return reference }
            return arguments[String(reference.dropFirst(2).dropLast())] ?? reference
        }
        let builder = image(froms[0])
        #expect(builder.hasPrefix("swift:6.") && builder.hasSuffix("-bookworm"), "builder image \(builder)")
        #expect(froms[0].hasSuffix(" AS builder"))
        #expect(image(froms[1]) == "debian:bookworm-slim")
    }

    @Test func theBinaryIsBuiltInReleaseModeWithTheStaticStandardLibrary() {
        let builds = self.dockerfile.all("RUN", stage: 1).filter { $0.arguments.contains("swift build") }
        #expect(builds.contains { $0.arguments.contains("swift build -c release --static-swift-stdlib") })
    }

    @Test func theRuntimeInstallsOnlySSLCurlAndCACertificates() {
        #expect(self.dockerfile.installedPackages(stage: 2) == ["libssl3", "libcurl4", "ca-certificates"])
        // Only build products come into the runtime stage: no dev certificate, no sources.
        for copy in self.dockerfile.all("COPY", stage: 2) {
            #expect(copy.arguments.hasPrefix("--from=builder "), "runtime COPY from the context: \(copy.arguments)")
        }
    }

    @Test func theRuntimeRunsAsANonRootUser() throws {
        let user = try #require(self.dockerfile.all("USER", stage: 2).last?.arguments)
        let uid = try #require(Int(user.split(separator: ":").first ?? ""))
        #expect(uid > 0)
    }

    /// `storygate healthcheck` with no `--url` asks the listener the environment names: the admin one's `/readyz`.
    @Test func theHealthcheckUsesTheBinaryOnTheAdminListener() throws {
        let check = try #require(self.dockerfile.all("HEALTHCHECK", stage: 2).first?.arguments)
        #expect(check.contains("CMD storygate healthcheck"))
        #expect(!check.contains("--url"))
        #expect(self.dockerfile.all("ENV", stage: 2).map(\.arguments).joined(separator: " ").contains("ADMIN_PORT=9901"))
        #expect(self.dockerfile.all("ENTRYPOINT", stage: 2).first?.arguments == #"["/usr/local/bin/storygate"]"#)
        #expect(self.dockerfile.all("STOPSIGNAL", stage: 2).first?.arguments == "SIGTERM")
        let environment = self.dockerfile.all("ENV", stage: 2).map(\.arguments).joined(separator: " ")
        #expect(environment.contains("HOST=0.0.0.0") && environment.contains("PORT=8080"))
        #expect(self.dockerfile.all("EXPOSE", stage: 2).first?.arguments == "8080")
    }

    /// The build context (the repository root) sends only the package: BuildKit reads `<Dockerfile>.dockerignore`.
    @Test func theBuildContextIsOnlyThePackage() throws {
        let ignored = try Repository.text("deploy/Dockerfile.dockerignore").split(separator: "\n").map(String.init)
        #expect(ignored.contains("*"))
        for kept in ["!Package.swift", "!Sources", "!Tests"] { #expect(ignored.contains(kept)) }
    }

    // MARK: docker-compose.yml

    /// Services whose environment configures a gateway (they set REDIS_URL).
    var gateways: [(name: String, service: YAMLValue)] {
        self.compose["services"].keys.map { ($0, self.compose["services"][$0]) }.filter { $0.service["environment"]["REDIS_URL"].exists }
    }

    @Test func twoGatewaysShareOneRedis() throws {
        let gateways = self.gateways
        #expect(gateways.count == 2)
        let urls = Set(gateways.compactMap { $0.service["environment"]["REDIS_URL"].string })
        #expect(urls == ["redis://redis:6379"])
        #expect(self.compose["services"]["redis"]["image"].string?.hasPrefix("redis:") == true)
        for gateway in gateways {
            #expect(gateway.service["read_only"].bool == true)
            #expect(gateway.service["environment"]["ENV"].string == "dev")
            #expect(gateway.service["environment"]["DEV_ALLOW_NON_LOOPBACK"].string == "true")
            #expect(gateway.service["build"]["dockerfile"].string == "deploy/Dockerfile")
            // Longer than the gateway's drain, so compose does not SIGKILL requests in flight.
            let grace = try #require(gateway.service["stop_grace_period"].string.flatMap { Double($0.dropLast()) })
            #expect(grace > ServerLimits().shutdownGraceSeconds)
        }
    }

    /// One published port, on the load balancer, whose upstreams are exactly the gateways and whose address is
    /// the gateways' trusted proxy.
    @Test func oneLoadBalancerInFrontOfTheGateways() throws {
        let services = self.compose["services"]
        let publishing = services.keys.filter { services[$0]["ports"].exists }
        #expect(publishing == ["load-balancer"])
        let balancer = services["load-balancer"]
        let address = try #require(balancer["networks"]["storygate"]["ipv4_address"].string)
        let nginx = try Repository.text("deploy/nginx.conf")
        var upstreams: Set<String> = []
        for line in nginx.split(separator: "\n") {
            let words = line.trimmingCharacters(in: .whitespaces).split(separator: " ")
            if words.first == "server", words.count > 1, words[1].contains(":") { upstreams.insert(String(words[1]).trimmingCharacters(in: [";"])) }
        }
        var expected: Set<String> = []
        for gateway in self.gateways {
            expected.insert("\(gateway.name):\(gateway.service["environment"]["PORT"].string ?? "?")")
            #expect(gateway.service["environment"]["TRUSTED_PROXIES"].string == address)
            #expect(balancer["depends_on"][gateway.name]["condition"].string == "service_healthy")
        }
        #expect(upstreams == expected)
    }

    /// Each gateway has a mock-openai sidecar in its network namespace, reached over loopback.
    @Test func eachGatewayHasAMockOpenAISidecar() throws {
        let services = self.compose["services"]
        for gateway in self.gateways {
            let sidecars = services.keys.filter {
                services[$0]["network_mode"].string == "service:\(gateway.name)" && services[$0]["command"].strings.first == "mock-openai"
            }
            #expect(sidecars.count == 1, "\(gateway.name) has \(sidecars.count) mock-openai sidecars")
            let command = services[try #require(sidecars.first)]["command"].strings
            let port = try #require(command.firstIndex(of: "--port").map { command[$0 + 1] })
            #expect(gateway.service["environment"]["OPENAI_BASE_URL"].string == "http://127.0.0.1:\(port)/v1")
        }
    }

    /// Media is in MinIO: a bucket made once at start by an `mc` one-shot, the gateways' S3 settings naming it, each
    /// reaching MinIO through a loopback relay in its own namespace (plain http only to loopback), no media volume.
    @Test func theGatewaysShareAMinIOBucket() throws {
        let services = self.compose["services"]
        #expect(services["minio"]["image"].string?.hasPrefix("minio/minio:") == true)
        let initializer = services["minio-init"]
        #expect(initializer["image"].string?.hasPrefix("minio/mc:") == true)
        let script = initializer["command"].strings.joined(separator: " ")
        for gateway in self.gateways {
            let environment = gateway.service["environment"]
            #expect(environment["MEDIA_STORE"].string == "s3")
            let bucket = try #require(environment["S3_BUCKET"].string)
            #expect(script.contains("mc mb --ignore-existing local/\(bucket)"))
            #expect(script.contains("\(environment["AWS_ACCESS_KEY_ID"].string ?? "?") \(environment["AWS_SECRET_ACCESS_KEY"].string ?? "?")"))
            #expect(services["minio"]["environment"]["MINIO_ROOT_USER"].string == environment["AWS_ACCESS_KEY_ID"].string)
            #expect(gateway.service["depends_on"]["minio-init"]["condition"].string == "service_completed_successfully")
            let endpoint = try #require(environment["S3_ENDPOINT"].string)
            #expect(endpoint == "http://127.0.0.1:9000")
            let relays = services.keys.filter {
                services[$0]["network_mode"].string == "service:\(gateway.name)" && services[$0]["command"].strings.first == "nginx"
            }
            #expect(relays.count == 1, "\(gateway.name) has \(relays.count) MinIO relays")
            #expect(!gateway.service["volumes"].strings.contains { $0.contains("media") })
        }
        let relay = try Repository.text("deploy/minio-loopback.conf")
        #expect(relay.contains("listen 127.0.0.1:9000;") && relay.contains("proxy_pass minio:9000;"))
    }
}
