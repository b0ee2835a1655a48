@testable import OpenAI
import Testing

@Suite("OpenAIErrorMapping: upstream answers to AIError")
struct ErrorMappingTests {
    func map(_ status: Int, _ body: String, retryAfter: Duration? = nil) -> AIError {
        OpenAIErrorMapping.error(status: status, body: Array(body.utf8), retryAfter: retryAfter, defaultRetryAfter: .seconds(20))
    }

    @Test("content-policy 400s", arguments: [
        #"{"error":{"message":"x","type":"invalid_request_error","param":null,"code":"content_policy_violation"}}"#,
        #"{"error":{"message":"x","type":"image_generation_user_error","code":"moderation_blocked"}}"#,
        #"{"error":{"message":"Your request was rejected as a result of our safety system.","type":"invalid_request_error","code":null}}"#,
    ])
    func contentPolicy(body: String) {
        let error = self.map(400, body)
        #expect(error.kind == .contentPolicy)
        #expect(error.status == 400)
    }

    @Test("other 400s and unreadable bodies are upstream")
    func plain400() {
        #expect(self.map(400, #"{"error":{"message":"bad size","type":"invalid_request_error","code":"invalid_value"}}"#).kind == .upstream)
        #expect(self.map(400, "<html>oops</html>").kind == .upstream)
        #expect(self.map(400, "").status == 400)
    }

    @Test("429 is rateLimited with Retry-After, or the default")
    func rateLimited() {
        let given = self.map(429, "{}", retryAfter: .seconds(7))
        #expect(given.kind == .rateLimited)
        #expect(given.retryAfter == 7)
        #expect(self.map(429, "{}").retryAfter == 20)
    }

    @Test("429 insufficient_quota is upstream and not retryable")
    func quota() {
        let body = #"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#
        #expect(self.map(429, body).kind == .upstream)
        #expect(OpenAIErrorMapping.isQuotaExceeded(status: 429, body: Array(body.utf8)))
        #expect(!OpenAIErrorMapping.isQuotaExceeded(status: 429, body: Array("{}".utf8)))
    }

    @Test("401, 403, 404, 422 and 5xx are upstream with their status", arguments: [401, 403, 404, 422, 500, 503])
    func upstream(status: Int) {
        let error = self.map(status, #"{"error":{"message":"Incorrect API key provided: sk-test-SECRET","type":"invalid_request_error","code":"invalid_api_key"}}"#)
        #expect(error.kind == .upstream)
        #expect(error.status == status)
        #expect(!error.description.contains("SECRET"))  // the upstream message is never copied
    }
}

@Suite("APIKey never prints")
struct APIKeyTests {
    @Test func redacted() {
        let key = APIKey(Fixtures.apiKey)
        #expect(key.description == "<redacted>")
        #expect("\(key)" == "<redacted>")
        #expect(String(reflecting: key) == "<redacted>")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("SECRET"))
        let configuration = OpenAIConfiguration(apiKey: key)
        #expect(!String(describing: configuration).contains("SECRET"))
        #expect(key.authorizationValue == "Bearer \(Fixtures.apiKey)")
    }

    @Test func configurationDefaults() {
        let configuration = OpenAIConfiguration(apiKey: APIKey("k"), baseURL: "http://localhost:1/v1//")
        #expect(configuration.baseURL == "http://localhost:1/v1")
        #expect(OpenAIConfiguration(apiKey: APIKey("k")).baseURL == "https://api.openai.com/v1")
        #expect(configuration.maxAttempts == 3)
        #expect(configuration.deadlines[.chat] == .seconds(120))
        #expect(configuration.deadlines[.speech] == .seconds(60))
        #expect(configuration.deadlines[.images] == .seconds(120))
        #expect(configuration.deadlines[.moderation] == .seconds(15))
    }
}

@Suite("Media signatures")
struct MediaSignatureTests {
    @Test func png() {
        #expect(MediaSignature.isPNG(Fixtures.png))
        #expect(!MediaSignature.isPNG(Array(#"{"error":{}}"#.utf8)))
        #expect(!MediaSignature.isPNG([0x89, 0x50, 0x4E, 0x47]))
    }

    @Test func mp3() {
        #expect(MediaSignature.isMP3(Fixtures.mp3))
        #expect(MediaSignature.isMP3(Array("ID3\u{4}\u{0}".utf8)))
        #expect(!MediaSignature.isMP3(Array(#"{"error":{}}"#.utf8)))
        #expect(!MediaSignature.isMP3([]))
    }
}
