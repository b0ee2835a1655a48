import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import Testing
import TestSupport

/// The five AI functions through the real gateway (dev mode, offline provider), and the media they store.
@Suite("AI functions end to end (offline provider)")
struct FunctionsEndToEndTests {
    static func dev(_ configuration: inout GatewayConfiguration) {
        configuration.mode = .dev
        configuration.firebaseProjectID = nil
        configuration.openAIAPIKey = nil
    }

    static var story: [String: Any] {
        [
        "hero": [
            "name": "Mila", "primary_trait": "brave", "secondary_trait": "curious",
            "appearance": "curly red hair and a green raincoat", "special_ability": "talks to birds", "age": 7,
        ],
        "event": ["type": "custom", "data": ["title": "The lost kite", "description": "A kite is stuck in the old oak tree."]],
        "target_duration": 120,
        "language": "en",
        ]
    }

    static func json(_ object: Any) -> [UInt8] {
        Array(try! JSONSerialization.data(withJSONObject: object))
    }

    func post(_ gateway: GatewayHarness, _ function: String, _ body: Any, uid: String = "kid-1") async throws -> CurlResponse {
        try await gateway.request(
            "POST", "/functions/v1/\(function)",
            headers: [("X-User-Id", uid), ("Content-Type", "application/json")], body: Self.json(body)
        )
    }

    @Test("story-generation: the app's contract, length from target_duration, rate-limit headers")
    func storyGeneration() async throws {
        try await GatewayHarness.run(configure: Self.dev) { gateway in
            let response = try await self.post(gateway, "story-generation", Self.story)
            #expect(response.status == 200, "\(response.text.prefix(300))")
            let story = try #require(response.json["story"] as? [String: Any])
            #expect((story["title"] as? String)?.isEmpty == false)
            let scenes = try #require(story["scenes"] as? [[String: Any]])
            #expect(!scenes.isEmpty)
            #expect(scenes.enumerated().allSatisfy { $1["number"] as? Int == $0 + 1 && $1["visualization_prompt"] is String })
            let words = try #require(response.json["word_count"] as? Int)
            #expect((200...400).contains(words), "about 150 words a minute for 120 s: \(words)")
            #expect(response.json["story_id"] is String)
            #expect(response.json["estimated_duration"] is NSNumber)
            #expect(response.header("ratelimit-policy") == "\"story-generation\";q=10;w=3600")
            #expect(response.header("ratelimit") == "\"story-generation\";r=9;t=360")
        }
    }

    @Test("extract-scenes returns the requested number of scenes")
    func extractScenes() async throws {
        try await GatewayHarness.run(configure: Self.dev) { gateway in
            let text = String(repeating: "Mila climbed the tree. The kite fluttered free. Everyone cheered. ", count: 10)
            let response = try await self.post(gateway, "extract-scenes", ["story_content": text, "target_scene_count": 4])
            #expect(response.status == 200, "\(response.text.prefix(300))")
            let scenes = try #require(response.json["scenes"] as? [[String: Any]])
            #expect(scenes.count == 4)
        }
    }

    @Test("audio-synthesis stores an MP3 served with byte ranges, ETag and caching")
    func audioAndMedia() async throws {
        try await GatewayHarness.run(configure: Self.dev) { gateway in
            let response = try await self.post(gateway, "audio-synthesis", ["text": "Once upon a time, a kite flew away. It was found.", "language": "en"])
            #expect(response.status == 200, "\(response.text.prefix(300))")
            let url = try #require(response.json["audio_url"] as? String)
            #expect(url.hasPrefix("/media/"))
            #expect(((response.json["duration"] as? NSNumber)?.doubleValue ?? 0) > 0)

            let full = try await gateway.get(url)
            #expect(full.status == 200)
            #expect(full.header("content-type") == "audio/mpeg")
            #expect(full.header("accept-ranges") == "bytes")
            let etag = try #require(full.header("etag"))
            #expect(full.body.count > 100)
            #expect(full.body.prefix(2) == [0xFF, 0xFB] || full.body.prefix(3) == [0x49, 0x44, 0x33])  // a frame sync, or an ID3 tag

            let partial = try await gateway.get(url, headers: [("Range", "bytes=10-19")])
            #expect(partial.status == 206)
            #expect(partial.body == Array(full.body[10...19]))
            #expect(partial.header("content-range") == "bytes 10-19/\(full.body.count)")

            let suffix = try await gateway.get(url, headers: [("Range", "bytes=-5")])
            #expect(suffix.status == 206)
            #expect(suffix.body == Array(full.body.suffix(5)))

            let beyond = try await gateway.get(url, headers: [("Range", "bytes=\(full.body.count + 10)-")])
            #expect(beyond.status == 416)
            #expect(beyond.header("content-range") == "bytes */\(full.body.count)")

            #expect(try await gateway.get(url, headers: [("If-None-Match", etag)]).status == 304)
            // Weak comparison over a list, over several fields (RFC 9110 §13.1.2); another tag is no match.
            for value in ["W/\(etag)", "\"other\", \(etag)", "*", " \"a\" ,W/\(etag) "] {
                #expect(try await gateway.get(url, headers: [("If-None-Match", value)]).status == 304, "\(value)")
            }
            #expect(try await gateway.get(url, headers: [("If-None-Match", "\"other\""), ("If-None-Match", etag)]).status == 304)
            #expect(try await gateway.get(url, headers: [("If-None-Match", "\"other\", W/\"x\"")]).status == 200)
            // If-Range compares strongly (§13.1.5): a weak tag does not keep the range.
            #expect(try await gateway.get(url, headers: [("Range", "bytes=0-0"), ("If-Range", "W/\(etag)")]).status == 200)
            // The route exists: an unknown key is "no such media object", not "no route".
            let unknown = try await gateway.get("/media/0123456789abcdef0123456789abcdef")
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "NOT_FOUND")
            #expect(unknown.errorMessage == "no such media object")
            #expect(try await gateway.get("/media/../../etc/passwd").status == 404)
        }
    }

    @Test("avatar then scene-illustration with the hero as reference; an unknown or foreign hero is 404")
    func images() async throws {
        try await GatewayHarness.run(configure: Self.dev) { gateway in
            let avatar = try await self.post(
                gateway, "avatar-generation",
                ["hero_id": "hero-1", "prompt": "a brave girl with curly red hair", "style": "vivid", "quality": "hd", "size": "1024x1792"]
            )
            #expect(avatar.status == 200, "\(avatar.text.prefix(300))")
            let generation = try #require(avatar.json["generation_id"] as? String)
            #expect(avatar.json["revised_prompt"] is String)
            let image = try await gateway.get(try #require(avatar.json["image_url"] as? String))
            #expect(image.header("content-type") == "image/png")
            #expect(image.body.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])

            let scene = try await self.post(
                gateway, "scene-illustration",
                ["story_id": "s1", "scene_number": 1, "prompt": "Mila under the oak tree", "hero_generation_id": generation, "style": "natural"]
            )
            #expect(scene.status == 200, "\(scene.text.prefix(300))")
            #expect(scene.json["generation_id"] as? String != generation)

            let unknown = try await self.post(
                gateway, "scene-illustration",
                ["story_id": "s1", "scene_number": 2, "prompt": "x", "hero_generation_id": "ffffffffffffffffffffffffffffffff", "style": "vivid"]
            )
            #expect(unknown.status == 404)
            #expect(unknown.errorCode == "NOT_FOUND")
            let foreign = try await self.post(
                gateway, "scene-illustration",
                ["story_id": "s1", "scene_number": 2, "prompt": "x", "hero_generation_id": generation, "style": "vivid"], uid: "someone-else"
            )
            #expect(foreign.status == 404)
        }
    }

    @Test("bad input: invalid JSON, a missing field, an unknown enum, an oversized body; never a 5xx")
    func badInput() async throws {
        try await GatewayHarness.run(configure: Self.dev) { gateway in
            let notJSON = try await gateway.request("POST", "/functions/v1/story-generation", headers: [("X-User-Id", "k"), ("Content-Type", "application/json")], body: Array("{nope".utf8))
            #expect(notJSON.status == 400)
            #expect(notJSON.errorCode == "INVALID_ARGUMENT")

            var missing = Self.story
            missing["language"] = nil
            let noLanguage = try await self.post(gateway, "story-generation", missing)
            #expect(noLanguage.status == 400)
            #expect(noLanguage.errorMessage?.contains("language") == true)

            let badVoice = try await self.post(gateway, "audio-synthesis", ["text": "Hello.", "language": "en", "voice": "darth"])
            #expect(badVoice.status == 400)
            #expect(badVoice.errorMessage?.contains("voice") == true)

            let huge = [UInt8](repeating: UInt8(ascii: "a"), count: 2 << 20)
            let tooLarge = try await gateway.request("POST", "/functions/v1/extract-scenes", headers: [("X-User-Id", "k"), ("Content-Type", "application/json")], body: huge)
            #expect(tooLarge.status == 413)
            #expect(tooLarge.errorCode == "PAYLOAD_TOO_LARGE")
            // the same without a declared length (chunked): read to the end, then refused
            let chunked = try await gateway.request(
                "POST", "/functions/v1/extract-scenes", headers: [("X-User-Id", "k"), ("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")], body: huge
            )
            #expect(chunked.status == 413)
            #expect(try await gateway.get("/healthz").status == 200)

            let unauthenticated = try await gateway.request("POST", "/functions/v1/story-generation", body: Self.json(Self.story))
            #expect(unauthenticated.status == 401)
            #expect(try await gateway.get("/functions/v1/story-generation", headers: [("X-User-Id", "k")]).status == 405)
        }
    }

    @Test("a body not declared JSON is 415, a member given twice 400; neither spends a rate-limit token")
    func strictBodies() async throws {
        try await GatewayHarness.run(configure: Self.dev) { gateway in
            let scenes = Array(#"{"story_content": "Mila climbed. The kite flew.", "target_scene_count": 1}"#.utf8)
            for contentType in [nil, "text/plain", "application/x-www-form-urlencoded", "application/jsonx"] {
                let headers = [("X-User-Id", "strict")] + (contentType.map { [("Content-Type", $0)] } ?? [])
                let refused = try await gateway.request("POST", "/functions/v1/extract-scenes", headers: headers, body: scenes)
                #expect(refused.status == 415, "\(contentType ?? "none")")
                #expect(refused.errorCode == "UNSUPPORTED_MEDIA_TYPE")
            }
            let twice = Array(#"{"story_content": "Mila climbed. The kite flew.", "target_scene_count": 1, "target_scene_count": 50}"#.utf8)
            let duplicate = try await gateway.request(
                "POST", "/functions/v1/extract-scenes", headers: [("X-User-Id", "strict"), ("Content-Type", "application/json")], body: twice
            )
            #expect(duplicate.status == 400)
            #expect(duplicate.errorCode == "INVALID_ARGUMENT")
            let invalid = try await self.post(gateway, "extract-scenes", ["story_content": "", "target_scene_count": 1], uid: "strict")
            #expect(invalid.status == 400)
            // None of the six refusals took a token: the first call that runs sees 29 of 30 left.
            let ok = try await gateway.request(
                "POST", "/functions/v1/extract-scenes", headers: [("X-User-Id", "strict"), ("Content-Type", "Application/JSON; charset=utf-8")],
                body: scenes
            )
            #expect(ok.status == 200, "\(ok.text.prefix(200))")
            #expect(ok.header("RateLimit")?.contains("r=29") == true, "\(ok.header("RateLimit") ?? "none")")
        }
    }

    @Test("prod without an OpenAI key refuses to start, naming the variable")
    func prodNeedsKey() {
        var configuration = GatewayConfiguration()
        configuration.firebaseProjectID = "my-project"
        do {
            _ = try GatewayApplication(configuration: configuration, logger: GatewayHarness.logger)
            Issue.record("started without a key")
        } catch {
            #expect(error.variable == "OPENAI_API_KEY")
        }
    }
}
