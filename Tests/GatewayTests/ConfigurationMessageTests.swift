import Testing

@testable import Gateway
@testable import GatewayConfig

/// What a refused variable says: the variable, then what a valid value looks like, never a value that may hold a
/// credential.
@Suite("Configuration error messages")
struct ConfigurationMessageTests {
    static func error(_ environment: [String: String]) -> ConfigurationError? {
        do {
            _ = try GatewayConfiguration(environment: ["FIREBASE_PROJECT_ID": "my-app-123"].merging(environment) { _, new in new })
            return nil
        } catch {
            return error
        }
    }

    @Test("REDIS_URL states its form and never shows the value")
    func redisURL() throws {
        let error = try #require(Self.error(["REDIS_URL": "http://localhost:6379"]))
        #expect(error.description == "REDIS_URL must look like redis://[:password@]host:port[/db] (the value is not shown: it may hold a credential)")
        let withPassword = try #require(Self.error(["REDIS_URL": "redis://:hunter2@cache:99999"]))
        #expect(!withPassword.description.contains("hunter2"))
    }

    @Test("OPENAI_BASE_URL states its form, with an example")
    func openAIBaseURL() throws {
        let error = try #require(Self.error(["OPENAI_BASE_URL": "api.openai.com"]))
        #expect(
            error.description
                == "OPENAI_BASE_URL must be an absolute https URL such as https://api.openai.com/v1 (plain http only to a loopback address, no user info), not 'api.openai.com'"
        )
        let withPassword = try #require(Self.error(["OPENAI_BASE_URL": "https://user:hunter2@example.com/v1"]))
        #expect(withPassword.description.hasPrefix("OPENAI_BASE_URL must be an absolute https URL such as https://api.openai.com/v1"))
        #expect(!withPassword.description.contains("hunter2"))
    }

    @Test(
        "every URL-like, name-like and enumerated variable says what it must be",
        arguments: [
            ("HOST", "bad host", "HOST must be a host name or IP address"),
            ("FIREBASE_PROJECT_ID", "My Project", "FIREBASE_PROJECT_ID must be a Firebase project id"),
            ("FIREBASE_CERTS_URL", "ftp://x/y", "FIREBASE_CERTS_URL must be an absolute https URL such as https://www.googleapis.com/"),
            ("OPENAI_MODEL_TEXT", "gpt 5", "OPENAI_MODEL_TEXT must be a model name"),
            ("OPENAI_MODEL_SPEECH", "tts/1", "OPENAI_MODEL_SPEECH must be a model name"),
            ("OPENAI_SPEECH_VOICE", "co ral", "OPENAI_SPEECH_VOICE must be a model name"),
            ("OPENAI_MODEL_MODERATION", "m?", "OPENAI_MODEL_MODERATION must be a model name"),
            ("OPENAI_MODEL_IMAGE", "i!", "OPENAI_MODEL_IMAGE must be a model name"),
            ("ENV", "staging", "ENV must be one of prod, dev"),
            ("LOG_LEVEL", "loud", "LOG_LEVEL must be one of trace, debug"),
            ("RATE_LIMIT_FAILURE_POLICY", "maybe", "RATE_LIMIT_FAILURE_POLICY must be one of open, closed"),
            ("IDEMPOTENCY_FAILURE_POLICY", "maybe", "IDEMPOTENCY_FAILURE_POLICY must be one of open, closed"),
            ("JOB_WORKERS", "many", "JOB_WORKERS must be a whole number from 0 to 256"),
            ("ACCESS_LOG", "perhaps", "ACCESS_LOG must be true or false"),
        ]
    )
    func statesTheExpectedForm(variable: String, value: String, start: String) throws {
        let error = try #require(Self.error([variable: value]))
        #expect(error.description.hasPrefix(start), "\(error.description)")
        #expect(!error.description.contains("invalid value"))
    }

    @Test("the --host flag states its form too")
    func hostFlag() throws {
        var configuration = GatewayConfiguration()
        #expect(throws: ConfigurationError.self) { try configuration.apply(CommandLineOverrides(host: "bad host")) }
        do {
            try configuration.apply(CommandLineOverrides(host: "bad host"))
        } catch {
            #expect(error.description == "--host must \(Expected.host), not 'bad host'")
        }
    }

    @Test("dev mode on a non-loopback HOST: a sentence that starts with the variable and says how to allow it")
    func devModeHost() throws {
        let error = try #require(Self.error(["ENV": "dev", "HOST": "0.0.0.0"]))
        #expect(
            error.description
                == "HOST must be a loopback address (127.0.0.1, ::1 or localhost) in dev mode, not '0.0.0.0': dev mode trusts the X-User-Id header and a published dev key (to bind beyond loopback anyway, set DEV_ALLOW_NON_LOOPBACK=true, or dev.allow_non_loopback: true in the config file)"
        )
    }
}
