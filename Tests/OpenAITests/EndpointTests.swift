import Foundation
import OpenAI
import Testing
import TestSupport

/// Each endpoint over real HTTP: what the fake received (path, headers, body keys) and how the answer is read.
@Suite("OpenAIClient endpoints: request shape and response decoding")
struct EndpointTests {
    static let chatRequest = StructuredChatRequest(
        model: "gpt-5", system: "You write stories for children.", user: "A fox who learns to swim.",
        schemaName: "story", schemaJSON: Fixtures.schemaJSON, safetyIdentifier: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        maxCompletionTokens: 2000
    )

    func expectCommonHeaders(_ request: LocalRequest, contentType: String = "application/json", accept: String = "application/json") {
        #expect(request.method == "POST")
        #expect(request.header("Authorization") == "Bearer \(Fixtures.apiKey)")
        #expect(request.header("Content-Type") == contentType)
        #expect(request.header("Accept") == accept)
    }

    @Test("chat/completions: messages, strict json_schema with the schema as an object, safety_identifier")
    func chat() async throws {
        try await withFakeOpenAI(sequence(Fixtures.chat(content: #"{"title":"Fox","count":2}"#))) { client, fake in
            let result = try await client.structuredChat(Self.chatRequest)
            #expect(String(decoding: result.json, as: UTF8.self) == #"{"title":"Fox","count":2}"#)
            #expect(result.promptTokens == 11)
            #expect(result.completionTokens == 7)

            let request = try #require(fake.requests.first)
            #expect(request.path == "/v1/chat/completions")
            self.expectCommonHeaders(request)
            let body = try fake.json()
            #expect(Set(body.keys) == ["model", "messages", "response_format", "max_completion_tokens", "safety_identifier"])
            #expect(body["model"] as? String == "gpt-5")
            #expect(body["max_completion_tokens"] as? Int == 2000)
            #expect(body["safety_identifier"] as? String == Self.chatRequest.safetyIdentifier)
            for forbidden in ["temperature", "max_tokens", "user"] { #expect(body[forbidden] == nil) }
            let messages = try #require(body["messages"] as? [[String: Any]])
            #expect(messages.count == 2)
            #expect(messages[0]["role"] as? String == "system")
            #expect(messages[0]["content"] as? String == Self.chatRequest.system)
            #expect(messages[1]["role"] as? String == "user")
            #expect(messages[1]["content"] as? String == Self.chatRequest.user)
            let format = try #require(body["response_format"] as? [String: Any])
            #expect(format["type"] as? String == "json_schema")
            let jsonSchema = try #require(format["json_schema"] as? [String: Any])
            #expect(jsonSchema["name"] as? String == "story")
            #expect(jsonSchema["strict"] as? Bool == true)
            let schema = try #require(jsonSchema["schema"] as? [String: Any], "the schema must be an object, not a string")
            #expect(schema["additionalProperties"] as? Bool == false)
            #expect(schema["required"] as? [String] == ["title", "count"])
            // the schema text is embedded verbatim (key order kept)
            #expect(request.bodyText.contains(Fixtures.schemaJSON))
        }
    }

    @Test("chat/completions: max_completion_tokens only when set; no usage reads as zero tokens")
    func chatMinimal() async throws {
        let answer = LocalResponse.json(#"{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"{}"}}]}"#)
        try await withFakeOpenAI(sequence(answer)) { client, fake in
            var request = Self.chatRequest
            request.maxCompletionTokens = nil
            let result = try await client.structuredChat(request)
            #expect(result.json == Array("{}".utf8))
            #expect(result.promptTokens == 0 && result.completionTokens == 0)
            #expect(try fake.json()["max_completion_tokens"] == nil)
        }
    }

    @Test("audio/speech: model, input, voice, mp3, speed, instructions; answers the MP3 bytes")
    func speech() async throws {
        let mp3 = LocalResponse(status: 200, headers: [("Content-Type", "audio/mpeg")], body: Fixtures.mp3)
        try await withFakeOpenAI(sequence(mp3)) { client, fake in
            let audio = try await client.speech(SpeechRequest(model: "gpt-4o-mini-tts", voice: "coral", input: "Once upon a time.", speed: 1.25, instructions: "Warm and calm."))
            #expect(audio == Fixtures.mp3)
            let request = try #require(fake.requests.first)
            #expect(request.path == "/v1/audio/speech")
            self.expectCommonHeaders(request, accept: "audio/mpeg, application/json")
            let body = try fake.json()
            #expect(Set(body.keys) == ["model", "input", "voice", "response_format", "speed", "instructions"])
            #expect(body["response_format"] as? String == "mp3")
            #expect(body["voice"] as? String == "coral")
            #expect(body["speed"] as? Double == 1.25)
            #expect(body["instructions"] as? String == "Warm and calm.")
        }
    }

    @Test("audio/speech: no instructions key when none are given")
    func speechWithoutInstructions() async throws {
        try await withFakeOpenAI(sequence(LocalResponse(status: 200, headers: [("Content-Type", "audio/mpeg")], body: Fixtures.mp3))) { client, fake in
            _ = try await client.speech(SpeechRequest(model: "gpt-4o-mini-tts", voice: "nova", input: "Hello."))
            #expect(Set(try fake.json().keys) == ["model", "input", "voice", "response_format", "speed"])
        }
    }

    @Test("audio/speech: a JSON body with status 200 is not audio")
    func speechJSONIsInvalid() async throws {
        try await withFakeOpenAI(sequence(.json(#"{"error":{"message":"nope"}}"#))) { client, _ in
            let error = await expectAIError { () async throws(AIError) in try await client.speech(SpeechRequest(model: "gpt-4o-mini-tts", voice: "coral", input: "x")) }
            #expect(error?.kind == .invalidResponse)
        }
    }

    @Test("images/generations: model, prompt, n 1, size, quality, output_format png, user; no response_format or style")
    func generateImage() async throws {
        try await withFakeOpenAI(sequence(Fixtures.images(revisedPrompt: "A red fox, watercolor."))) { client, fake in
            let result = try await client.generateImage(ImageRequest(model: "gpt-image-2.5-flare", prompt: "A fox.", size: "1024x1536", quality: "medium", safetyIdentifier: "hash-1"))
            #expect(result.png == Fixtures.png)
            #expect(result.revisedPrompt == "A red fox, watercolor.")
            let request = try #require(fake.requests.first)
            #expect(request.path == "/v1/images/generations")
            self.expectCommonHeaders(request)
            let body = try fake.json()
            #expect(Set(body.keys) == ["model", "prompt", "n", "size", "quality", "output_format", "user"])
            #expect(body["n"] as? Int == 1)
            #expect(body["size"] as? String == "1024x1536")
            #expect(body["quality"] as? String == "medium")
            #expect(body["output_format"] as? String == "png")
            #expect(body["user"] as? String == "hash-1")
            for forbidden in ["response_format", "style", "safety_identifier"] { #expect(body[forbidden] == nil) }
        }
    }

    @Test("images/generations: no revised_prompt reads as nil; bad base64 or a non-PNG is invalidResponse")
    func imageDecoding() async throws {
        try await withFakeOpenAI(sequence(Fixtures.images(), Fixtures.images(b64: "!!!not base64!!!"), Fixtures.images(b64: Data("GIF89a....".utf8).base64EncodedString()), .json(#"{"created":1,"data":[]}"#))) { client, _ in
            let request = ImageRequest(model: "gpt-image-2.5-flare", prompt: "p", size: "auto", quality: "auto", safetyIdentifier: "h")
            let first = try await client.generateImage(request)
            #expect(first.revisedPrompt == nil)
            for _ in 0..<3 {
                let error = await expectAIError { () async throws(AIError) in try await client.generateImage(request) }
                #expect(error?.kind == .invalidResponse)
            }
        }
    }

    @Test("images/edits: multipart with the PNG file part, text fields and a random boundary")
    func editImage() async throws {
        try await withFakeOpenAI(sequence(Fixtures.images())) { client, fake in
            let result = try await client.editImage(ImageEditRequest(model: "gpt-image-2.5-flare", prompt: "The fox on a boat.", image: Fixtures.png, size: "1536x1024", quality: "high", safetyIdentifier: "hash-2"))
            #expect(result.png == Fixtures.png)
            #expect(result.revisedPrompt == nil)
            let request = try #require(fake.requests.first)
            #expect(request.path == "/v1/images/edits")
            let contentType = try #require(request.header("Content-Type"))
            #expect(contentType.hasPrefix("multipart/form-data; boundary="))
            self.expectCommonHeaders(request, contentType: contentType)
            let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
            #expect(boundary.count >= 32)
            let form = try #require(MultipartParts(body: request.body, boundary: boundary))
            #expect(form.closed)
            #expect(Set(form.parts.map(\.name)) == ["image", "prompt", "model", "size", "quality", "output_format", "user"])
            let image = try #require(form["image"])
            #expect(image.filename == "image.png")
            #expect(image.contentType == "image/png")
            #expect(image.data == Fixtures.png)
            #expect(form["prompt"]?.text == "The fox on a boat.")
            #expect(form["model"]?.text == "gpt-image-2.5-flare")
            #expect(form["size"]?.text == "1536x1024")
            #expect(form["quality"]?.text == "high")
            #expect(form["output_format"]?.text == "png")
            #expect(form["user"]?.text == "hash-2")
            #expect(form["response_format"] == nil && form["style"] == nil && form["n"] == nil)
        }
    }

    @Test("moderations: model and input; flagged and the true category names")
    func moderate() async throws {
        let answer = Fixtures.moderation(flagged: true, categories: ["violence": true, "harassment": false, "self-harm": true, "sexual": false])
        try await withFakeOpenAI(sequence(answer, Fixtures.moderation(flagged: false, categories: ["violence": false]))) { client, fake in
            let flagged = try await client.moderate(ModerationRequest(model: "omni-moderation-latest", input: "some text"))
            #expect(flagged == ModerationResult(flagged: true, categories: ["self-harm", "violence"]))
            let clean = try await client.moderate(ModerationRequest(model: "omni-moderation-latest", input: "a nice text"))
            #expect(clean == ModerationResult(flagged: false, categories: []))
            let request = try #require(fake.requests.first)
            #expect(request.path == "/v1/moderations")
            self.expectCommonHeaders(request)
            let body = try fake.json()
            #expect(Set(body.keys) == ["model", "input"])
            #expect(body["input"] as? String == "some text")
        }
    }
}
