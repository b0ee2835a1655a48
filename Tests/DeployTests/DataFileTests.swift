import Foundation
import Testing
import Yams

/// Every YAML and JSON file in the repository parses: deploy/ (Kubernetes multi-document files included),
/// openapi.yaml, certs/dev, and any added later.
@Suite struct DataFileTests {
    static let files = Repository.dataFiles()

    @Test func theDeploymentFilesAreFound() {
        for expected in [
            "openapi.yaml", "deploy/docker-compose.yml", "deploy/kubernetes/deployment.yaml",
            "deploy/kubernetes/configmap.yaml", "deploy/kubernetes/redis.yaml", "deploy/kubernetes/kustomization.yaml",
        ] {
            #expect(Self.files.contains(expected), "\(expected) was not found by the walk")
        }
        #expect(!Self.files.contains { $0.hasPrefix(".build") })
    }

    @Test(arguments: Self.files)
    func parses(_ file: String) throws {
        let text = try Repository.text(file)
        if file.hasSuffix(".json") {
            let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
            #expect(value is [String: Any] || value is [Any], "\(file) is not a JSON object or array")
        } else {
            let documents = try Array(Yams.load_all(yaml: text))
            #expect(!documents.isEmpty, "\(file) has no YAML document")
            for (index, document) in documents.enumerated() {
                #expect(document is [AnyHashable: Any], "\(file) document \(index) is not a mapping")
            }
        }
    }

    /// YAML nested in YAML: the gateway config file inside the ConfigMap parses too.
    @Test func theConfigMapsConfigFileParses() throws {
        let configMap = try Repository.yaml("deploy/kubernetes/configmap.yaml")
        let text = try #require(configMap["data"]["storygate.yaml"].string)
        let config = YAMLValue(try Yams.load(yaml: text))
        #expect(config["env"].string == "prod")
        #expect(config["listen"]["port"].int != nil)
    }
}
