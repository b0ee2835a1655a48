import CurlHTTP
import FoundationEssentials
@testable import MockOpenAI
import OpenAI
import Testing

@Suite("Endpoints answer in OpenAI's shape")
struct EndpointSuccessTests {
    @Test func chatCompletionHasOpenAIShapeAndReachesTheProvider() async throws {
        try await withMockServer { mock in
            let response = try await mock.post("/chat/completions", json: chatBody())
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            let json = response.json
            #expect(json["object"] == .string("chat.completion"))
            #expect(json["model"] == .string("gpt-5"))
            #expect(json["id"]?.stringValue?.hasPrefix("chatcmpl-") == true)
            #expect(json["created"]?.numberValue.map { $0 > 1_700_000_000 } == true)
            let choice = json["choices"]?.arrayValue?.first
            #expect(choice?["index"] == .number(0))
            #expect(choice?["finish_reason"] == .string("stop"))
            #expect(choice?["message"]?["role"] == .string("assistant"))
            #expect(choice?["message"]?["refusal"] == .null)
            #expect(choice?["message"]?["content"] == .string(String(decoding: CannedProvider.chatJSON, as: UTF8.self)))
            #expect(json["usage"] == .object(["prompt_tokens": .number(12), "completion_tokens": .number(7), "total_tokens": .number(19)]))

            let seen = try #require(mock.provider.seen.chat)
            #expect(seen.model == "gpt-5")
            #expect(seen.system == "You write stories for children.")
            #expect(seen.user == "Write a story about Mia.")
            #expect(seen.schemaName == "story")
            #expect(seen.safetyIdentifier == "hash-123")
            #expect(seen.maxCompletionTokens == 2000)
            let schema = try #require(JSONValue.parse(Array(seen.schemaJSON.utf8)))
            #expect(schema["additionalProperties"] == .bool(false))
            #expect(schema["required"] == .array([.string("title")]))
        }
    }

    @Test func chatAcceptsContentPartsAndDeveloperMessages() async throws {
        try await withMockServer { mock in
            let body = #"""
                {"model":"gpt-5","messages":[{"role":"developer","content":[{"type":"text","text":"Be kind."}]},
                 {"role":"user","content":[{"type":"text","text":"Hello"}]}],
                 "response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object"}}}}
                """#
            let response = try await mock.post("/chat/completions", json: body)
            #expect(response.status == 200)
            #expect(mock.provider.seen.chat?.system == "Be kind.")
            #expect(mock.provider.seen.chat?.user == "Hello")
        }
    }

    @Test func speechAnswersMP3() async throws {
        try await withMockServer { mock in
            let response = try await mock.post(
                "/audio/speech",
                json: #"{"model":"gpt-4o-mini-tts","voice":"coral","input":"Once upon a time.","speed":1.25,"instructions":"Warm.","response_format":"mp3"}"#
            )
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "audio/mpeg")
            #expect(response.body == CannedProvider.mp3)
            let seen = try #require(mock.provider.seen.speech)
            #expect(seen == SpeechRequest(model: "gpt-4o-mini-tts", voice: "coral", input: "Once upon a time.", speed: 1.25, instructions: "Warm."))
        }
    }

    @Test func imageGenerationAnswersBase64PNG() async throws {
        try await withMockServer { mock in
            let response = try await mock.post(
                "/images/generations",
                json: #"{"model":"gpt-image-1","prompt":"A brave fox","size":"1024x1536","quality":"high","user":"hash-9"}"#
            )
            #expect(response.status == 200)
            let json = response.json
            #expect(json["created"]?.numberValue != nil)
            let image = try #require(json["data"]?.arrayValue?.first)
            let png = try #require(image["b64_json"]?.stringValue.flatMap { Data(base64Encoded: $0) })
            #expect(Array(png) == CannedProvider.png)
            #expect(image["revised_prompt"] == .string("revised: A brave fox"))
            #expect(mock.provider.seen.image == ImageRequest(model: "gpt-image-1", prompt: "A brave fox", size: "1024x1536", quality: "high", safetyIdentifier: "hash-9"))
        }
    }

    @Test func imageEditParsesMultipartAndKeepsImageBytesIntact() async throws {
        try await withMockServer { mock in
            // Bytes that look like line ends and delimiters must survive.
            let image = CannedProvider.png + Array("\r\n--not-the-boundary\r\n\r\n".utf8) + [0, 0xFF, 13, 10, 45, 45]
            var form = MultipartBody()
            form.field("model", "gpt-image-1")
            form.field("prompt", "The hero, in a forest.\r\nSecond line; with \"quotes\".")
            form.field("size", "1536x1024")
            form.field("quality", "medium")
            form.field("user", "hash-7")
            form.file("image", filename: "hero.png", contentType: "image/png", image)
            let response = try await mock.post("/images/edits", body: form.finished(), contentType: form.contentType)
            #expect(response.status == 200)
            let data = try #require(response.json["data"]?.arrayValue?.first)
            #expect(data["b64_json"]?.stringValue.flatMap { Data(base64Encoded: $0) }.map(Array.init) == CannedProvider.png)
            #expect(data["revised_prompt"] == nil)
            let seen = try #require(mock.provider.seen.edit)
            #expect(seen.image == image)
            #expect(seen.prompt == "The hero, in a forest.\r\nSecond line; with \"quotes\".")
            #expect(seen.model == "gpt-image-1")
            #expect(seen.size == "1536x1024")
            #expect(seen.quality == "medium")
            #expect(seen.safetyIdentifier == "hash-7")
        }
    }

    @Test func moderationAnswersEveryCategory() async throws {
        try await withMockServer { mock in
            let response = try await mock.post("/moderations", json: #"{"model":"omni-moderation-latest","input":"A friendly dragon."}"#)
            #expect(response.status == 200)
            let json = response.json
            #expect(json["id"]?.stringValue?.hasPrefix("modr-") == true)
            #expect(json["model"] == .string("omni-moderation-latest"))
            let result = try #require(json["results"]?.arrayValue?.first)
            #expect(result["flagged"] == .bool(false))
            #expect(result["categories"]?["violence"] == .bool(false))
            #expect(result["category_scores"]?["sexual/minors"]?.numberValue != nil)
            #expect(mock.provider.seen.moderation == ModerationRequest(model: "omni-moderation-latest", input: "A friendly dragon."))

            let flagged = try await mock.post("/moderations", json: #"{"input":["REFUSE this"]}"#)
            let flaggedResult = flagged.json["results"]?.arrayValue?.first
            #expect(flaggedResult?["flagged"] == .bool(true))
            #expect(flaggedResult?["categories"]?["violence"] == .bool(true))
        }
    }

    @Test func latencyIsAddedAndAnswersStillArrive() async throws {
        try await withMockServer({ $0.latency = .milliseconds(50) }) { mock in
            let response = try await mock.post("/moderations", json: #"{"input":"hi"}"#)
            #expect(response.status == 200)
        }
    }
}
