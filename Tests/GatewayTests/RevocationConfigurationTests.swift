import Gateway
import GatewayConfig
import Revocation
import TestSupport
import Testing

@Suite struct RevocationConfigurationTests {
    static let base = ["FIREBASE_PROJECT_ID": "storygate-test", "OPENAI_API_KEY": "sk-test"]

    @Test func defaultsAreOff() throws {
        let configuration = try GatewayConfiguration(environment: Self.base)
        #expect(configuration.revocation == RevocationConfiguration())
        #expect(configuration.revocation.check == .off)
        #expect(configuration.revocation.maxAgeSeconds == 300)
        #expect(configuration.revocation.failurePolicy == .open)
        #expect(configuration.revocation.identityToolkitURL == "https://identitytoolkit.googleapis.com")
        #expect(configuration.googleCredentialsFile == nil)
        #expect(configuration.adminToken == nil)
    }

    @Test func readsTheVariables() throws {
        try withTemporaryFile("0123456789abcdef0123\n") { adminPath in
            var environment = Self.base
            environment["REVOCATION_CHECK"] = "off"
            environment["REVOCATION_MAX_AGE_SECONDS"] = "60"
            environment["REVOCATION_FAILURE_POLICY"] = "closed"
            environment["IDENTITY_TOOLKIT_URL"] = "http://127.0.0.1:9999"
            environment["GOOGLE_APPLICATION_CREDENTIALS"] = "/secrets/sa.json"
            environment["ADMIN_TOKEN_FILE"] = adminPath
            let configuration = try GatewayConfiguration(environment: environment)
            #expect(configuration.revocation.maxAgeSeconds == 60)
            #expect(configuration.revocation.failurePolicy == .closed)
            #expect(configuration.revocation.identityToolkitURL == "http://127.0.0.1:9999")
            #expect(configuration.googleCredentialsFile == "/secrets/sa.json")
            #expect(configuration.adminToken?.value == "0123456789abcdef0123")
        }
    }

    @Test(arguments: [
        ("REVOCATION_CHECK", "yes"), ("REVOCATION_MAX_AGE_SECONDS", "0"), ("REVOCATION_MAX_AGE_SECONDS", "86401"),
        ("REVOCATION_FAILURE_POLICY", "fail-open"), ("IDENTITY_TOOLKIT_URL", "http://identitytoolkit.googleapis.com"),
        ("IDENTITY_TOOLKIT_URL", "https://user@identitytoolkit.googleapis.com"), ("ADMIN_TOKEN_FILE", "/nonexistent/admin-token"),
    ])
    func refusesBadValues(variable: String, value: String) {
        var environment = Self.base
        environment[variable] = value
        let error = #expect(throws: ConfigurationError.self) { try GatewayConfiguration(environment: environment) }
        #expect(error?.description.contains(variable) == true, "\(String(describing: error))")
    }

    @Test func aShortAdminTokenIsRefused() throws {
        try withTemporaryFile("short") { path in
            var environment = Self.base
            environment["ADMIN_TOKEN_FILE"] = path
            let error = #expect(throws: ConfigurationError.self) { try GatewayConfiguration(environment: environment) }
            #expect(error?.description.contains("16 bytes") == true)
            #expect(error?.description.contains("short") == false)
        }
    }

    @Test func checkOnNeedsUsableCredentialsAtStart() throws {
        var environment = Self.base
        environment["REVOCATION_CHECK"] = "on"
        let missing = #expect(throws: ConfigurationError.self) { try GatewayConfiguration.loadForStart(configPath: nil, environment: environment) }
        #expect(missing?.description.contains("GOOGLE_APPLICATION_CREDENTIALS") == true)
        try withTemporaryFile(TestServiceAccount.json(tokenURI: "http://oauth2.example.com/token")) { path in
            environment["GOOGLE_APPLICATION_CREDENTIALS"] = path
            let unusable = #expect(throws: ConfigurationError.self) { try GatewayConfiguration.loadForStart(configPath: nil, environment: environment) }
            #expect(unusable?.description.contains("token_uri") == true)
            #expect(unusable?.description.contains("PRIVATE KEY") == false)
        }
        try withTemporaryFile(TestServiceAccount.json(tokenURI: "https://oauth2.googleapis.com/token")) { path in
            environment["GOOGLE_APPLICATION_CREDENTIALS"] = path
            let configuration = try GatewayConfiguration.loadForStart(configPath: nil, environment: environment)
            #expect(configuration.revocation.check == .on)
            // check-config shows the credentials' path and the admin token's file, never their contents.
            let yaml = try configuration.effectiveYAML()
            #expect(yaml.contains("credentials_file: \(path)"))
            #expect(!yaml.contains("PRIVATE KEY"))
            #expect(yaml.contains("check: 'on'") || yaml.contains("check: \"on\""), "\(yaml)")
        }
    }

    /// `GOOGLE_APPLICATION_CREDENTIALS` is often set for other Google tools, to a user's credentials: with the check
    /// off, that is no reason to refuse to start; with it on, it is.
    @Test func anotherKindOfCredentialsFileMattersOnlyWithTheCheckOn() throws {
        try withTemporaryFile(TestServiceAccount.json(tokenURI: "https://oauth2.googleapis.com/token", type: "authorized_user")) { path in
            var environment = Self.base
            environment["GOOGLE_APPLICATION_CREDENTIALS"] = path
            _ = try GatewayConfiguration.loadForStart(configPath: nil, environment: environment)
            environment["REVOCATION_CHECK"] = "on"
            let error = #expect(throws: ConfigurationError.self) { try GatewayConfiguration.loadForStart(configPath: nil, environment: environment) }
            #expect(error?.description.contains("service_account") == true, "\(String(describing: error))")
        }
    }

    @Test func readsTheConfigFileAndItsOutputLoadsBack() throws {
        let yaml = """
            firebase:
              project_id: storygate-test
              identity_toolkit_url: http://127.0.0.1:4000
              revocation:
                check: off
                max_age_seconds: 120
                failure_policy: closed
            google:
              credentials_file: /run/secrets/google.json
            """
        try withTemporaryFile(yaml) { path in
            let configuration = try GatewayConfiguration.load(configPath: path, environment: ["OPENAI_API_KEY": "sk-test"])
            #expect(configuration.revocation.maxAgeSeconds == 120)
            #expect(configuration.revocation.failurePolicy == .closed)
            #expect(configuration.revocation.identityToolkitURL == "http://127.0.0.1:4000")
            #expect(configuration.googleCredentialsFile == "/run/secrets/google.json")
            let printed = try configuration.effectiveYAML()
            try withTemporaryFile(printed) { again in
                let reloaded = try GatewayConfiguration.load(configPath: again, environment: ["OPENAI_API_KEY": "sk-test"])
                #expect(reloaded == configuration)
            }
        }
    }

    @Test func revocationKeysAreCheckedInTheFile() throws {
        try withTemporaryFile("firebase:\n  revocation:\n    check: maybe\n") { path in
            let error = #expect(throws: ConfigurationError.self) { try GatewayConfiguration.load(configPath: path, environment: [:]) }
            #expect(error?.description.contains("firebase.revocation.check") == true, "\(String(describing: error))")
        }
    }
}
