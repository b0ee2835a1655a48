import Foundation
import StoryFunctions
import Testing

@testable import Gateway
@testable import GatewayConfig

/// `MEDIA_STORE`, `MEDIA_DELIVERY` and the `S3_*` settings: from the environment and the `media` section, the rules
/// across them, and `check-config`'s text with the secret never in it.
@Suite("Media configuration")
struct MediaConfigurationTests {
    static let s3Environment = [
        "ENV": "dev", "MEDIA_STORE": "s3", "S3_ENDPOINT": "https://s3.eu-west-1.amazonaws.com", "S3_BUCKET": "kids-media",
        "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "top-secret-value",
    ]

    @Test("the defaults: the file store under media_dir, proxied")
    func defaults() throws {
        let configuration = try GatewayConfiguration(environment: ["ENV": "dev"])
        #expect(configuration.media.store == .file && configuration.media.delivery == .proxy && configuration.media.urlTTLSeconds == 900)
        #expect(try configuration.media.s3Settings() == nil)
    }

    @Test("the environment makes S3 settings, with the documented defaults")
    func fromEnvironment() throws {
        var environment = Self.s3Environment
        environment["MEDIA_DELIVERY"] = "redirect"
        environment["MEDIA_URL_TTL_SECONDS"] = "60"
        let configuration = try GatewayConfiguration(environment: environment)
        let settings = try #require(try configuration.media.s3Settings())
        #expect(settings.endpoint == "https://s3.eu-west-1.amazonaws.com" && settings.bucket == "kids-media")
        #expect(settings.region == "us-east-1" && settings.addressing == .virtual && settings.prefix == "")
        #expect(settings.credentials == S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "top-secret-value"))
        #expect(configuration.media.delivery == .redirect && configuration.media.urlTTLSeconds == 60)
    }

    @Test("refused: a missing bucket or key, half a key pair, http off loopback, a bad prefix, redirect from files", arguments: [
        (["S3_BUCKET": ""], "S3_BUCKET"),
        (["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""], "AWS_ACCESS_KEY_ID"),
        (["AWS_SECRET_ACCESS_KEY": ""], "AWS_SECRET_ACCESS_KEY"),
        (["S3_ENDPOINT": "http://minio.internal:9000"], "S3_ENDPOINT"),
        (["S3_ENDPOINT": "https://s3.amazonaws.com/bucket"], "S3_ENDPOINT"),
        (["S3_PREFIX": "../up/"], "S3_PREFIX"),
        (["S3_ADDRESSING": "dns"], "S3_ADDRESSING"),
        (["MEDIA_STORE": "file", "MEDIA_DELIVERY": "redirect"], "MEDIA_DELIVERY"),
        (["MEDIA_URL_TTL_SECONDS": "604801"], "MEDIA_URL_TTL_SECONDS"),
    ])
    func refused(_ change: [String: String], _ variable: String) {
        let environment = Self.s3Environment.merging(change) { $1 }
        do {
            _ = try GatewayConfiguration(environment: environment)
            Issue.record("accepted \(change)")
        } catch {
            #expect(error.variable == variable, "\(error)")
            #expect(!"\(error)".contains("top-secret-value"))
        }
    }

    @Test("plain http to a loopback endpoint is allowed (a local MinIO or test server)")
    func loopbackHTTP() throws {
        let configuration = try GatewayConfiguration(environment: Self.s3Environment.merging(["S3_ENDPOINT": "http://127.0.0.1:9000"]) { $1 })
        #expect(configuration.media.s3Endpoint == "http://127.0.0.1:9000")
    }

    @Test("the media section with a credentials file; check-config names the file, never the secret; it loads back")
    func configFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("s3-\(UUID().uuidString)").path
        try "AWS_ACCESS_KEY_ID=AKIDFILE\nAWS_SECRET_ACCESS_KEY=file-secret-value\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let yaml = """
            env: dev
            media:
              store: s3
              dir: /srv/media
              delivery: redirect
              s3: {endpoint: 'https://storage.googleapis.com', bucket: my-app.appspot.com, region: auto, prefix: media/, addressing: path, credentials_file: '\(path)'}
            """
        let configuration = try GatewayConfiguration(yaml: yaml)
        #expect(configuration.mediaDirectory == "/srv/media")
        let settings = try #require(try configuration.media.s3Settings())
        #expect(settings.region == "auto" && settings.prefix == "media/" && settings.addressing == .path && settings.bucket == "my-app.appspot.com")
        #expect(settings.credentials.secretAccessKey == "file-secret-value")
        let printed = try configuration.effectiveYAML()
        #expect(printed.contains("credentials_file: \(path)") && !printed.contains("file-secret-value"), "\(printed)")
        #expect(try GatewayConfiguration(yaml: printed) == configuration)

        // Keys from the environment print as <redacted>.
        let fromEnvironment = try GatewayConfiguration(environment: Self.s3Environment).effectiveYAML()
        #expect(fromEnvironment.contains("credentials_file: <redacted>") && !fromEnvironment.contains("top-secret-value"))
    }

    @Test("a key written into the file is refused without echoing it")
    func inlineKeyRefused() {
        let yaml = "env: dev\nmedia:\n  s3:\n    secret_access_key: inline-secret-value\n"
        do {
            _ = try GatewayConfiguration(yaml: yaml)
            Issue.record("accepted an inline key")
        } catch {
            #expect("\(error)".contains("never written in the config file") && !"\(error)".contains("inline-secret-value"), "\(error)")
        }
    }
}
