import Foundation
import TestSupport

/// Bytes and JSON answers a fake OpenAI sends.
enum Fixtures {
    /// The API key the tests use; no log line or error may contain it.
    static let apiKey = "sk-test-SECRET-abc123"

    /// A 1×1 PNG (signature, IHDR, IDAT, IEND).
    static let png: [UInt8] = Array(
        Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!
    )

    /// An MPEG-1 Layer III frame header (`FF FB 90 64`) and some zero bytes.
    static let mp3: [UInt8] = [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 413)

    /// The strict schema of the chat tests, with its key order and an integer.
    static let schemaJSON = #"{"type":"object","properties":{"title":{"type":"string"},"count":{"type":"integer","minimum":1}},"required":["title","count"],"additionalProperties":false}"#

    /// A chat completion answering `content`.
    static func chat(content: String, promptTokens: Int = 11, completionTokens: Int = 7, finishReason: String = "stop") -> LocalResponse {
        .json(
            json([
                "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-5",
                "choices": [[
                    "index": 0, "finish_reason": finishReason,
                    "message": ["role": "assistant", "content": content, "refusal": NSNull()],
                ]],
                "usage": ["prompt_tokens": promptTokens, "completion_tokens": completionTokens, "total_tokens": promptTokens + completionTokens],
            ])
        )
    }

    /// A chat completion whose message is a refusal.
    static let chatRefusal = LocalResponse.json(
        json([
            "id": "chatcmpl-2", "object": "chat.completion", "created": 1, "model": "gpt-5",
            "choices": [[
                "index": 0, "finish_reason": "stop",
                "message": ["role": "assistant", "content": NSNull(), "refusal": "I can't help with that."],
            ]],
        ])
    )

    /// An images answer with `b64` as `data[0].b64_json`.
    static func images(b64: String = Data(Fixtures.png).base64EncodedString(), revisedPrompt: String? = nil) -> LocalResponse {
        var image: [String: Any] = ["b64_json": b64]
        if let revisedPrompt { image["revised_prompt"] = revisedPrompt }
        return .json(json(["created": 1, "data": [image]]))
    }

    /// A moderation answer.
    static func moderation(flagged: Bool, categories: [String: Bool]) -> LocalResponse {
        .json(
            json([
                "id": "modr-1", "model": "omni-moderation-latest",
                "results": [["flagged": flagged, "categories": categories, "category_scores": categories.mapValues { $0 ? 0.9 : 0.01 }]],
            ])
        )
    }

    /// An OpenAI error answer.
    static func error(status: Int, code: String?, type: String = "invalid_request_error", message: String = "Something went wrong.", headers: [(name: String, value: String)] = []) -> LocalResponse {
        var response = LocalResponse.json(
            json(["error": ["message": message, "type": type, "param": NSNull(), "code": code.map { $0 as Any } ?? NSNull()]]),
            status: status
        )
        response.headers += headers
        return response
    }

    static func json(_ object: Any) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
}
