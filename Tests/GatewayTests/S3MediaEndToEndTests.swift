import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import StoryFunctions
import Testing
import TestSupport

/// The gateway with `MEDIA_STORE=s3` against `moto_server` (signature checking on): generated media stored in the
/// bucket and served from it (streamed in pieces, with ranges and validators), the hero reference read back from it,
/// redirect delivery, and a store that is down.
@Suite("Media end to end: the S3 store (moto_server), and streaming from either store")
struct S3MediaEndToEndTests {
    static func s3(_ moto: MotoServer, delivery: MediaConfiguration.Delivery = .proxy) -> (inout GatewayConfiguration) -> Void {
        { configuration in
            FunctionsEndToEndTests.dev(&configuration)
            configuration.media.store = .s3
            configuration.media.s3Endpoint = moto.endpoint
            configuration.media.s3Bucket = moto.bucket
            configuration.media.s3Addressing = .path
            configuration.media.s3Prefix = "media/"
            configuration.media.s3Credentials = S3Credentials(accessKeyID: moto.accessKeyID, secretAccessKey: moto.secretAccessKey)
            configuration.media.delivery = delivery
        }
    }

    func post(_ gateway: GatewayHarness, _ function: String, _ body: Any, uid: String = "kid-1") async throws -> CurlResponse {
        try await gateway.request(
            "POST", "/functions/v1/\(function)",
            headers: [("X-User-Id", uid), ("Content-Type", "application/json")], body: FunctionsEndToEndTests.json(body)
        )
    }

    @Test("audio and images stored in the bucket and proxied: whole, in ranges, 304, 416; the hero read back from it")
    func proxied() async throws {
        try await withMotoServer { moto in
            try await GatewayHarness.run(configure: Self.s3(moto)) { gateway in
                // About 150 s of speech: an MP3 of several of the handler's 256 KiB pieces.
                let text = String(repeating: "The little kite flew over the hills and far away again. ", count: 40)
                let audio = try await self.post(gateway, "audio-synthesis", ["text": text, "language": "en"])
                #expect(audio.status == 200, "\(audio.text.prefix(300))")
                let url = try #require(audio.json["audio_url"] as? String)
                let full = try await gateway.get(url)
                #expect(full.status == 200 && full.header("content-type") == "audio/mpeg")
                try #require(full.body.count > 2 * 262_144, "\(full.body.count)")
                #expect(full.header("content-length") == String(full.body.count))
                let key = String(url.dropFirst("/media/".count))
                #expect(full.header("etag") == "\"\(key)\"")

                let start = 262_144 - 10
                let partial = try await gateway.get(url, headers: [("Range", "bytes=\(start)-\(start + 300_000)")])
                #expect(partial.status == 206)
                #expect(partial.body == Array(full.body[start...(start + 300_000)]))
                #expect(try await gateway.get(url, headers: [("If-None-Match", "\"\(key)\"")]).status == 304)
                #expect(try await gateway.get(url, headers: [("Range", "bytes=\(full.body.count)-")]).status == 416)
                let head = try await gateway.request("HEAD", url)
                #expect(head.status == 200 && head.header("content-length") == String(full.body.count) && head.body.isEmpty)
                #expect(try await gateway.get("/media/0123456789abcdef0123456789abcdef").status == 404)

                let avatar = try await self.post(gateway, "avatar-generation", ["hero_id": "h", "prompt": "a girl with a kite"])
                #expect(avatar.status == 200, "\(avatar.text.prefix(300))")
                let generation = try #require(avatar.json["generation_id"] as? String)
                let image = try await gateway.get(try #require(avatar.json["image_url"] as? String))
                #expect(image.status == 200 && image.body.prefix(4) == [0x89, 0x50, 0x4E, 0x47])
                let scene = try await self.post(
                    gateway, "scene-illustration",
                    ["story_id": "s", "scene_number": 1, "prompt": "the kite in a tree", "hero_generation_id": generation]
                )
                #expect(scene.status == 200, "\(scene.text.prefix(300))")
                let foreign = try await self.post(
                    gateway, "scene-illustration",
                    ["story_id": "s", "scene_number": 1, "prompt": "x", "hero_generation_id": generation], uid: "kid-2"
                )
                #expect(foreign.status == 404)
            }
        }
    }

    @Test("the file store streams in pieces too: an MP3 over two pieces, whole and across a piece boundary")
    func fileStoreStreams() async throws {
        try await GatewayHarness.run(configure: FunctionsEndToEndTests.dev) { gateway in
            let text = String(repeating: "The little kite flew over the hills and far away again. ", count: 40)
            let audio = try await self.post(gateway, "audio-synthesis", ["text": text, "language": "en"])
            let url = try #require(audio.json["audio_url"] as? String)
            let full = try await gateway.get(url)
            try #require(full.status == 200 && full.body.count > 2 * 262_144, "\(full.body.count)")
            #expect(MP3.duration(of: full.body) != nil)
            let partial = try await gateway.get(url, headers: [("Range", "bytes=262000-600000")])
            #expect(partial.status == 206 && partial.body == Array(full.body[262_000...600_000]))
        }
    }

    @Test("redirect delivery: a 302 to a presigned URL of the object; an unknown key is 404")
    func redirected() async throws {
        try await withMotoServer { moto in
            try await GatewayHarness.run(configure: Self.s3(moto, delivery: .redirect)) { gateway in
                let avatar = try await self.post(gateway, "avatar-generation", ["hero_id": "h", "prompt": "a boy with a dog"])
                #expect(avatar.status == 200, "\(avatar.text.prefix(300))")
                let answer = try await gateway.get(try #require(avatar.json["image_url"] as? String))
                #expect(answer.status == 302)
                let location = try #require(answer.header("location"))
                #expect(location.hasPrefix("\(moto.endpoint)/\(moto.bucket)/media/hero-avatars/") && location.contains("X-Amz-Expires=900"))
                // moto cannot check presigned signatures (S3MediaStoreTests compares them with botocore's): checks off.
                try moto.disableSignatureChecks()
                let fetched = try await gateway.client.execute(CurlRequest(url: location))
                #expect(fetched.status == 200 && PNG.isPNG(fetched.body))
                #expect(try await gateway.get("/media/0123456789abcdef0123456789abcdef").status == 404)
            }
        }
    }

    @Test("the store down: a generation is 503 STORAGE_UNAVAILABLE with Retry-After, /readyz stays ready, the metric shows it")
    func storeDown() async throws {
        try await withMotoServer { moto in
            try await GatewayHarness.run(configure: Self.s3(moto)) { gateway in
                let stored = try await self.post(gateway, "avatar-generation", ["hero_id": "h", "prompt": "a cat"])
                #expect(stored.status == 200)
                moto.kill()
                let refused = try await self.post(gateway, "avatar-generation", ["hero_id": "h", "prompt": "a cat"])
                #expect(refused.status == 503, "\(refused.text.prefix(300))")
                #expect(refused.errorCode == "STORAGE_UNAVAILABLE")
                #expect(refused.header("retry-after") != nil)
                #expect(refused.json["image_url"] == nil)
                let media = try await gateway.get("/media/0123456789abcdef0123456789abcdef")
                #expect(media.status == 503 && media.errorCode == "STORAGE_UNAVAILABLE")
                #expect(try await gateway.get("/readyz").status == 200)
                let metrics = try await gateway.settledMetrics()
                #expect(metrics.contains("storygate_media_store_up 0"), "\(metrics.split(separator: "\n").filter { $0.contains("media_store") })")
                #expect(metrics.contains("storygate_media_store_requests_total{operation=\"put\",outcome=\"unavailable\"}"))
            }
        }
    }
}
