import Foundation
@testable import OpenAI
import Testing

@Suite("Request bodies, encoded without a server")
struct WireEncodingTests {
    @Test("the schema is spliced in as raw JSON, byte for byte")
    func schemaSpliced() throws {
        let request = StructuredChatRequest(
            model: "gpt-5", system: "sys", user: "storygate-raw-json-deadbeef \" / \\", schemaName: "story",
            schemaJSON: Fixtures.schemaJSON, safetyIdentifier: "abc"
        )
        let placeholder = RawJSONPlaceholder.make()
        let body = try JSONBody.encode(ChatCompletionBody(request, schema: placeholder), splicing: request.schemaJSON, at: placeholder)
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains(#""schema":\#(Fixtures.schemaJSON)"#))
        #expect(!text.contains(placeholder.token))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        let messages = try #require(object["messages"] as? [[String: Any]])
        #expect(messages[1]["content"] as? String == request.user)
        #expect(object["max_completion_tokens"] == nil)
    }

    @Test("a schema that is not a JSON object is refused", arguments: ["", "[1]", "\"x\"", "{nope"])
    func badSchema(schema: String) {
        let placeholder = RawJSONPlaceholder.make()
        let request = StructuredChatRequest(model: "gpt-5", system: "s", user: "u", schemaName: "n", schemaJSON: schema, safetyIdentifier: "")
        #expect(throws: JSONBody.Failure.self) {
            try JSONBody.encode(ChatCompletionBody(request, schema: placeholder), splicing: schema, at: placeholder)
        }
    }

    @Test("multipart: a random boundary, parts closed by CRLF, the closing delimiter")
    func multipart() throws {
        let request = ImageEditRequest(model: "gpt-image-2.5-flare", prompt: "a fox\r\nin a hat", image: Fixtures.png, size: "1024x1024", quality: "low", safetyIdentifier: "hash")
        let first = ImageEditForm.make(request)
        let second = ImageEditForm.make(request)
        #expect(first.contentType != second.contentType)
        let boundary = try #require(first.contentType.components(separatedBy: "multipart/form-data; boundary=").last)
        #expect(boundary.count >= 32)
        let form = try #require(MultipartParts(body: first.body, boundary: boundary))
        #expect(form.closed)
        #expect(form.parts.map(\.name) == ["image", "prompt", "model", "size", "quality", "output_format", "user"])
        #expect(form["image"]?.data == Fixtures.png)
        #expect(form["prompt"]?.text == "a fox\r\nin a hat")
    }

    @Test("a boundary found inside the image is replaced")
    func boundaryCollision() throws {
        let boundary = "storygate-00000000000000000000000000000000"
        let image = Fixtures.png + Array("--\(boundary)".utf8)
        let request = ImageEditRequest(model: "gpt-image-2.5-flare", prompt: "p", image: image, size: "auto", quality: "auto", safetyIdentifier: "")
        let form = ImageEditForm.make(request, boundary: boundary)
        #expect(!form.contentType.hasSuffix(boundary))
    }

    @Test("speech: instructions only for models that take them")
    func speechInstructions() throws {
        let withInstructions = try JSONBody.encode(SpeechBody(SpeechRequest(model: "gpt-4o-mini-tts", voice: "coral", input: "hi", instructions: "warm")))
        #expect(String(decoding: withInstructions, as: UTF8.self).contains(#""instructions":"warm""#))
        let tts1 = try JSONBody.encode(SpeechBody(SpeechRequest(model: "tts-1", voice: "coral", input: "hi", instructions: "warm")))
        #expect(!String(decoding: tts1, as: UTF8.self).contains("instructions"))
    }
}
