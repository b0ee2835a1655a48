import CurlHTTP
@testable import MockOpenAI
import Testing

@Suite("Errors in OpenAI's shape")
struct ErrorAnswerTests {
    @Test func missingAuthorizationIs401() async throws {
        try await withMockServer { mock in
            let response = try await mock.post("/chat/completions", json: chatBody(), key: nil)
            expectOpenAIError(response, status: 401, type: "invalid_request_error", code: "invalid_api_key")
            #expect(mock.provider.seen.chat == nil)
        }
    }

    @Test func emptyOrNonBearerAuthorizationIs401() async throws {
        try await withMockServer { mock in
            let empty = try await mock.post("/moderations", json: #"{"input":"x"}"#, key: "")
            expectOpenAIError(empty, status: 401, code: "invalid_api_key")
            let basic = try await mock.client.execute(CurlRequest(
                url: mock.baseURL + "/moderations", method: "POST",
                headers: [CurlHeader("Authorization", "Basic dXNlcjpwYXNz"), CurlHeader("Content-Type", "application/json")],
                body: Array(#"{"input":"x"}"#.utf8)
            ))
            expectOpenAIError(basic, status: 401, code: "invalid_api_key")
        }
    }

    @Test func wrongKeyIs401WhenAKeyIsRequired() async throws {
        try await withMockServer({ $0.requiredAPIKey = "sk-right" }) { mock in
            let wrong = try await mock.post("/moderations", json: #"{"input":"x"}"#, key: "sk-wrong")
            let error = expectOpenAIError(wrong, status: 401, code: "invalid_api_key")
            #expect(error?["message"]?.stringValue?.contains("sk-wrong") == false)
            let right = try await mock.post("/moderations", json: #"{"input":"x"}"#, key: "sk-right")
            #expect(right.status == 200)
        }
    }

    @Test func invalidJSONIs400() async throws {
        try await withMockServer { mock in
            for path in ["/chat/completions", "/audio/speech", "/images/generations", "/moderations"] {
                let response = try await mock.post(path, json: #"{"model": "gpt-5", "#)
                expectOpenAIError(response, status: 400, type: "invalid_request_error")
            }
            let array = try await mock.post("/chat/completions", json: "[1,2]")
            expectOpenAIError(array, status: 400, type: "invalid_request_error")
        }
    }

    @Test(arguments: [
        ("/chat/completions", #"{"messages":[{"role":"user","content":"hi"}]}"#, "model"),
        ("/chat/completions", #"{"model":"gpt-5"}"#, "messages"),
        ("/chat/completions", #"{"model":"gpt-5","messages":[{"role":"user","content":"hi"}]}"#, "response_format"),
        ("/chat/completions", #"{"model":"gpt-5","messages":[{"role":"system","content":"s"}],"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":{}}}}"#, "messages"),
        ("/audio/speech", #"{"model":"tts-1","voice":"coral"}"#, "input"),
        ("/audio/speech", #"{"model":"tts-1","input":"hi"}"#, "voice"),
        ("/audio/speech", #"{"model":"tts-1","input":"hi","voice":"coral","speed":9}"#, "speed"),
        ("/images/generations", #"{"model":"gpt-image-1"}"#, "prompt"),
        ("/images/generations", #"{"prompt":42}"#, "prompt"),
        ("/moderations", #"{"model":"omni-moderation-latest"}"#, "input"),
    ])
    func missingOrIllTypedFieldsAre400NamingTheParameter(path: String, body: String, param: String) async throws {
        try await withMockServer { mock in
            let response = try await mock.post(path, json: body)
            expectOpenAIError(response, status: 400, type: "invalid_request_error", param: param)
        }
    }

    @Test func imageEditsNeedsMultipartWithImageAndPrompt() async throws {
        try await withMockServer { mock in
            let json = try await mock.post("/images/edits", json: #"{"prompt":"x"}"#)
            expectOpenAIError(json, status: 400, type: "invalid_request_error")

            var noImage = MultipartBody()
            noImage.field("prompt", "x")
            let missingImage = try await mock.post("/images/edits", body: noImage.finished(), contentType: noImage.contentType)
            expectOpenAIError(missingImage, status: 400, param: "image")

            var noPrompt = MultipartBody()
            noPrompt.file("image", filename: "a.png", contentType: "image/png", CannedProvider.png)
            let missingPrompt = try await mock.post("/images/edits", body: noPrompt.finished(), contentType: noPrompt.contentType)
            expectOpenAIError(missingPrompt, status: 400, param: "prompt")

            var truncated = MultipartBody()
            truncated.field("prompt", "x")
            let cut = try await mock.post("/images/edits", body: truncated.bytes + Array("--\(truncated.boundary)\r\nContent-Dispo".utf8), contentType: truncated.contentType)
            expectOpenAIError(cut, status: 400, type: "invalid_request_error")
        }
    }

    @Test func unknownPathIs404AndWrongMethodIs405() async throws {
        try await withMockServer { mock in
            let unknown = try await mock.post("/embeddings", json: "{}")
            expectOpenAIError(unknown, status: 404)
            let outside = try await mock.client.execute(CurlRequest(url: "http://127.0.0.1:\(mock.port)/chat/completions"))
            expectOpenAIError(outside, status: 404)
            let get = try await mock.client.execute(CurlRequest(url: mock.baseURL + "/chat/completions"))
            expectOpenAIError(get, status: 405)
            #expect(get.header("Allow") == "POST")
        }
    }

    @Test func bodyOverTheLimitIs413() async throws {
        try await withMockServer({ $0.maxRequestBodyBytes = 1024 }) { mock in
            let large = try await mock.post("/moderations", json: #"{"input":""# + String(repeating: "a", count: 2000) + #""}"#)
            expectOpenAIError(large, status: 413)
            let small = try await mock.post("/moderations", json: #"{"input":"small"}"#)
            #expect(small.status == 200)
        }
    }

    @Test func providerRefusalIsAChatRefusalOrAContentPolicyError() async throws {
        try await withMockServer { mock in
            let chat = try await mock.post("/chat/completions", json: chatBody(user: "REFUSE please"))
            #expect(chat.status == 200)
            let message = chat.json["choices"]?.arrayValue?.first?["message"]
            #expect(message?["content"] == .null)
            #expect(message?["refusal"]?.stringValue?.isEmpty == false)

            let image = try await mock.post("/images/generations", json: #"{"model":"gpt-image-1","prompt":"REFUSE"}"#)
            expectOpenAIError(image, status: 400, code: "content_policy_violation")

            var form = MultipartBody()
            form.field("prompt", "REFUSE")
            form.file("image", filename: "a.png", contentType: "image/png", CannedProvider.png)
            let edit = try await mock.post("/images/edits", body: form.finished(), contentType: form.contentType)
            expectOpenAIError(edit, status: 400, code: "content_policy_violation")
        }
    }
}
