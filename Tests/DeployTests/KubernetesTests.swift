import Foundation
import Gateway
import GatewayConfig
import StoryFunctions
import Testing
import Yams

/// deploy/kubernetes: the manifests agree with each other, with the config file in the ConfigMap, and with the
/// gateway (probe paths, drain time, non-root image user).
@Suite struct KubernetesTests {
    let objects: [YAMLValue]
    let files: [String]

    init() throws {
        let folder = "deploy/kubernetes"
        self.files = try FileManager.default.contentsOfDirectory(atPath: Repository.path(folder))
            .filter { $0.hasSuffix(".yaml") }.sorted()
        self.objects = try self.files.filter { $0 != "kustomization.yaml" }
            .flatMap { try Repository.yamlDocuments(folder + "/" + $0) }
    }

    func object(_ kind: String, _ name: String) throws -> YAMLValue {
        try #require(self.objects.first { $0["kind"].string == kind && $0["metadata"]["name"].string == name }, "no \(kind) \(name)")
    }

    var gateway: YAMLValue { get throws { try self.object("Deployment", "storygate") } }
    var gatewayContainer: YAMLValue { get throws { try self.gateway["spec"]["template"]["spec"]["containers"][0] } }

    /// The gateway's config file, from the ConfigMap.
    var config: YAMLValue {
        get throws {
            let text = try #require(try self.object("ConfigMap", "storygate-config")["data"]["storygate.yaml"].string)
            return YAMLValue(try Yams.load(yaml: text))
        }
    }

    @Test func theKustomizationListsEveryManifest() throws {
        let kustomization = try Repository.yaml("deploy/kubernetes/kustomization.yaml")
        #expect(Set(kustomization["resources"].strings) == Set(self.files.filter { $0 != "kustomization.yaml" }))
    }

    @Test func everyObjectHasKindNameAndLabels() {
        for object in self.objects {
            #expect(object["apiVersion"].string != nil && object["kind"].string != nil)
            #expect(object["metadata"]["name"].string != nil)
            #expect(object["metadata"]["labels"]["app.kubernetes.io/name"].string == "storygate")
        }
    }

    @Test func probesUseReadyzAndHealthz() throws {
        let container = try self.gatewayContainer
        #expect(container["readinessProbe"]["httpGet"]["path"].string == "/readyz")
        #expect(container["livenessProbe"]["httpGet"]["path"].string == "/healthz")
        #expect(container["startupProbe"]["httpGet"]["path"].string == "/healthz")
        let portNames = container["ports"].array.compactMap { $0["name"].string }
        for probe in ["readinessProbe", "livenessProbe", "startupProbe"] {
            #expect(portNames.contains(container[probe]["httpGet"]["port"].string ?? "?"), "\(probe) names no container port")
        }
    }

    /// preStop sleep + the gateway's drain must end before Kubernetes sends SIGKILL.
    @Test func terminationGraceCoversPreStopAndDrain() throws {
        let pod = try self.gateway["spec"]["template"]["spec"]
        let termination = try #require(pod["terminationGracePeriodSeconds"].int)
        let preStop = try self.gatewayContainer["lifecycle"]["preStop"]["exec"]["command"].strings
        #expect(preStop.first == "/bin/sleep")
        let sleep = try #require(preStop.last.flatMap { Double($0) })
        let drain = try #require(try self.config["server"]["shutdown_grace_seconds"].double)
        #expect(drain > 0)
        #expect(Double(termination) > sleep + drain, "terminationGracePeriodSeconds \(termination) ≤ preStop \(sleep) + grace \(drain)")
    }

    @Test func theGatewayRunsNonRootWithAReadOnlyRoot() throws {
        let pod = try self.gateway["spec"]["template"]["spec"]
        #expect(pod["securityContext"]["runAsNonRoot"].bool == true)
        #expect((pod["securityContext"]["runAsUser"].int ?? 0) > 0)
        #expect(pod["automountServiceAccountToken"].bool == false)
        let security = try self.gatewayContainer["securityContext"]
        #expect(security["readOnlyRootFilesystem"].bool == true)
        #expect(security["allowPrivilegeEscalation"].bool == false)
        #expect(security["capabilities"]["drop"].strings == ["ALL"])
    }

    @Test func everyContainerHasRequestsAndLimits() throws {
        for deployment in self.objects where deployment["kind"].string == "Deployment" {
            for container in deployment["spec"]["template"]["spec"]["containers"].array {
                for kind in ["requests", "limits"] {
                    #expect(container["resources"][kind]["cpu"].exists, "\(container["name"]) has no cpu \(kind)")
                    #expect(container["resources"][kind]["memory"].exists, "\(container["name"]) has no memory \(kind)")
                }
            }
        }
    }

    /// `serve --config <file>`, where the file is the ConfigMap's key in its read-only mount.
    @Test func theConfigFileComesFromTheConfigMap() throws {
        let container = try self.gatewayContainer
        let arguments = container["args"].strings
        let index = try #require(arguments.firstIndex(of: "--config"))
        #expect(arguments.first == "serve")
        let configPath = arguments[index + 1]
        let pod = try self.gateway["spec"]["template"]["spec"]
        let mount = try #require(container["volumeMounts"].array.first { configPath.hasPrefix(($0["mountPath"].string ?? "?") + "/") })
        #expect(mount["readOnly"].bool == true)
        let volume = try #require(pod["volumes"].array.first { $0["name"].string == mount["name"].string })
        #expect(volume["configMap"]["name"].string == "storygate-config")
        let key = String(configPath.split(separator: "/").last ?? "")
        #expect(try self.object("ConfigMap", "storygate-config")["data"][key].string != nil)
        #expect(try self.config["env"].string == "prod")
    }

    @Test func theOpenAIKeyComesFromASecret() throws {
        let environment = try self.gatewayContainer["env"].array
        let key = try #require(environment.first { $0["name"].string == "OPENAI_API_KEY" })
        #expect(key["value"].exists == false)
        #expect(key["valueFrom"]["secretKeyRef"]["name"].string != nil)
        #expect(key["valueFrom"]["secretKeyRef"]["key"].string != nil)
        #expect(try self.config["openai"]["api_key"].exists == false)
    }

    /// Media is in an S3 bucket the replicas share: the config file names it (and holds no key), the key pair comes
    /// from a Secret, and no volume holds media.
    @Test func mediaIsInABucketWithKeysFromASecret() throws {
        let media = try self.config["media"]
        #expect(media["store"].string == "s3")
        #expect(media["s3"]["endpoint"].string?.hasPrefix("https://") == true)
        #expect(media["s3"]["bucket"].string?.isEmpty == false)
        #expect(media["s3"]["access_key_id"].exists == false && media["s3"]["secret_access_key"].exists == false)
        #expect(try self.config["media_dir"].exists == false)
        let environment = try self.gatewayContainer["env"].array
        for name in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] {
            let variable = try #require(environment.first { $0["name"].string == name })
            #expect(variable["value"].exists == false)
            #expect(variable["valueFrom"]["secretKeyRef"]["name"].string == "storygate-s3")
        }
        let mounts = try self.gatewayContainer["volumeMounts"].array
        #expect(!mounts.contains { $0["mountPath"].string?.contains("media") == true })
        let pod = try self.gateway["spec"]["template"]["spec"]
        #expect(!pod["volumes"].array.contains { $0["name"].string == "media" })
        // The gateway loads it, with the Secret's keys in the environment, as an S3 store.
        let text = try #require(try self.object("ConfigMap", "storygate-config")["data"]["storygate.yaml"].string)
        let loaded = try GatewayConfiguration(yaml: text, environment: ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret"])
        #expect(try loaded.media.s3Settings()?.bucket == media["s3"]["bucket"].string)
    }

    /// The kubelet probes and Prometheus scrapes the admin listener, on the pod address, and no Service exposes it.
    @Test func probesAndScrapesUseTheAdminPort() throws {
        let port = try #require(try self.config["admin"]["port"].int)
        #expect(try self.config["admin"]["host"].string == "0.0.0.0")
        let container = try self.gatewayContainer
        #expect(container["ports"].array.contains { $0["name"].string == "admin" && $0["containerPort"].int == port })
        for probe in ["readinessProbe", "livenessProbe", "startupProbe"] {
            #expect(container[probe]["httpGet"]["port"].string == "admin", "\(probe)")
        }
        let annotations = try self.gateway["spec"]["template"]["metadata"]["annotations"]
        #expect(annotations["prometheus.io/port"].string == String(port))
        #expect(annotations["prometheus.io/path"].string == "/metrics")
        let service = try self.object("Service", "storygate")
        #expect(!service["spec"]["ports"].array.contains { $0["targetPort"].string == "admin" || $0["targetPort"].int == port })
    }

    @Test func theListenPortIsTheContainerPort() throws {
        let port = try #require(try self.config["listen"]["port"].int)
        #expect(try self.gatewayContainer["ports"].array.contains { $0["containerPort"].int == port })
        #expect(try self.config["listen"]["host"].string == "0.0.0.0")
    }

    @Test func selectorsMatchThePods() throws {
        for deployment in self.objects where deployment["kind"].string == "Deployment" {
            let selector = deployment["spec"]["selector"]["matchLabels"]
            let labels = deployment["spec"]["template"]["metadata"]["labels"]
            for key in selector.keys { #expect(labels[key].string == selector[key].string) }
        }
        let labels = try self.gateway["spec"]["template"]["metadata"]["labels"]
        let service = try self.object("Service", "storygate")
        for key in service["spec"]["selector"].keys { #expect(labels[key].string == service["spec"]["selector"][key].string) }
        let portNames = try self.gatewayContainer["ports"].array.compactMap { $0["name"].string }
        #expect(portNames.contains(service["spec"]["ports"][0]["targetPort"].string ?? "?"))
        let budget = try self.object("PodDisruptionBudget", "storygate")
        for key in budget["spec"]["selector"]["matchLabels"].keys {
            #expect(labels[key].string == budget["spec"]["selector"]["matchLabels"][key].string)
        }
    }

    @Test func theAutoscalerAndBudgetKeepTwoReplicasAndOneServing() throws {
        let autoscaler = try self.object("HorizontalPodAutoscaler", "storygate")
        #expect(autoscaler["spec"]["scaleTargetRef"]["kind"].string == "Deployment")
        #expect(autoscaler["spec"]["scaleTargetRef"]["name"].string == "storygate")
        let minimum = try #require(autoscaler["spec"]["minReplicas"].int)
        #expect(minimum >= 2)
        #expect((autoscaler["spec"]["maxReplicas"].int ?? 0) > minimum)
        let budget = try self.object("PodDisruptionBudget", "storygate")
        let available = try #require(budget["spec"]["minAvailable"].int)
        #expect(available >= 1 && available < minimum)
    }

    /// The config's Redis URL names the Redis Service and its port.
    @Test func theGatewaysShareTheRedisService() throws {
        let url = try #require(try self.config["redis"]["url"].string)
        let service = try self.object("Service", "storygate-redis")
        let port = try #require(service["spec"]["ports"][0]["port"].int)
        #expect(url == "redis://storygate-redis:\(port)")
        let redis = try self.object("Deployment", "storygate-redis")
        #expect(redis["spec"]["replicas"].int == 1)
        let policy = try self.object("NetworkPolicy", "storygate-redis")
        let allowed = policy["spec"]["ingress"][0]["from"][0]["podSelector"]["matchLabels"]
        let gatewayLabels = try self.gateway["spec"]["template"]["metadata"]["labels"]
        for key in allowed.keys { #expect(gatewayLabels[key].string == allowed[key].string) }
    }

    /// The autoscaler owns the replica count: a `replicas` in the Deployment would reset it on every apply.
    @Test func theAutoscalerAloneSetsTheGatewayReplicaCount() throws {
        #expect(try self.gateway["spec"]["replicas"].exists == false)
        let autoscaler = try self.object("HorizontalPodAutoscaler", "storygate")
        let name = try self.gateway["metadata"]["name"].string
        #expect(autoscaler["spec"]["scaleTargetRef"]["name"].string == name)
    }

    /// The gateway pods take the public port from anywhere, the admin port only from the Prometheus pods (namespace
    /// and pod label in one peer, so both must match); the kubelet's probes come from the node, always allowed.
    @Test func onlyTheScraperReachesTheAdminPort() throws {
        let policy = try self.object("NetworkPolicy", "storygate")
        let labels = try self.gateway["spec"]["template"]["metadata"]["labels"]
        let selected = policy["spec"]["podSelector"]["matchLabels"]
        #expect(!selected.keys.isEmpty)
        for key in selected.keys { #expect(labels[key].string == selected[key].string) }
        #expect(policy["spec"]["policyTypes"].strings.contains("Ingress"))
        let adminPort = try #require(try self.config["admin"]["port"].int)
        let publicPort = try #require(try self.config["listen"]["port"].int)
        let rules = policy["spec"]["ingress"].array
        func rulesOpening(_ port: Int) -> [YAMLValue] {
            rules.filter { rule in rule["ports"].array.contains { $0["port"].int == port } }
        }
        // Every rule names its ports: a rule without ports would open the admin port too.
        #expect(rules.allSatisfy { !$0["ports"].array.isEmpty })
        #expect(rulesOpening(publicPort).contains { !$0["from"].exists })
        let admin = rulesOpening(adminPort)
        #expect(admin.count == 1)
        let peers = try #require(admin.first)["from"].array
        #expect(peers.count == 1)
        let peer = try #require(peers.first)
        #expect(peer["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"].string?.isEmpty == false)
        #expect(peer["podSelector"]["matchLabels"].keys.isEmpty == false)
        #expect(!peer["ipBlock"].exists)
    }
}
