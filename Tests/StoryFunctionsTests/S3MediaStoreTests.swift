import CurlHTTP
import Foundation
import IDTokens
import Logging
import OpenAI
@testable import StoryFunctions
import Testing
import TestSupport

/// The S3 store against a real S3 API server (`moto_server`, signature checking on): round trips of real PNG and MP3
/// bytes in both addressing styles, ranges, missing keys, the object layout and its metadata, presigned URLs, a wrong
/// secret, a store stopped and restarted, and one that never answers.
@Suite("S3 media store (moto_server)")
struct S3MediaStoreTests {
    static let logger: Logger = {
        var logger = Logger(label: "S3MediaStoreTests")
        logger.logLevel = .critical
        return logger
    }()

    /// Retries as the OpenAI client's policy does, with short waits and deadlines so faults end quickly.
    static func settings(
        endpoint: String, bucket: String, credentials: S3Credentials, addressing: S3Settings.Addressing = .path, prefix: String = ""
    ) -> S3Settings {
        S3Settings(
            endpoint: endpoint, bucket: bucket, prefix: prefix, addressing: addressing, credentials: credentials,
            deadline: .seconds(3), attemptTimeout: .milliseconds(800),
            retryPolicy: RetryPolicy(maxAttempts: 3, backoffBase: .milliseconds(20), backoffCap: .milliseconds(100))
        )
    }

    static func credentials(_ moto: MotoServer) -> S3Credentials {
        S3Credentials(accessKeyID: moto.accessKeyID, secretAccessKey: moto.secretAccessKey)
    }

    /// A real PNG (several IDAT-sized pieces of noise) and a real MP3 (MPEG frames) from the offline provider's makers.
    static let png = PNG.image(width: 300, height: 300, seed: 42)
    static let mp3 = MP3.silence(seconds: 3)

    func withClient<T: Sendable>(_ body: (CurlClient) async throws -> T) async throws -> T {
        let client = CurlClient(logger: Self.logger)
        let run = Task { try await client.run() }
        defer { run.cancel() }
        return try await body(client)
    }

    func expectUnavailable(_ operation: () async throws -> Void) async {
        do {
            try await operation()
            Issue.record("expected STORAGE_UNAVAILABLE, got success")
        } catch let error as FunctionError {
            #expect(error == .storageUnavailable)
            #expect(error.status == 503 && error.retryAfter != nil)
        } catch {
            Issue.record("expected STORAGE_UNAVAILABLE, got \(error)")
        }
    }

    @Test("PNG and MP3 round trips, ranges, missing keys, the app's layout and metadata (path style)")
    func roundTripPathStyle() async throws {
        try await withMotoServer { moto in
            try await self.withClient { client in
                let settings = Self.settings(endpoint: moto.endpoint, bucket: moto.bucket, credentials: Self.credentials(moto), prefix: "prod/")
                let store = S3MediaStore(settings: settings, http: client, logger: Self.logger)
                #expect(PNG.isPNG(Self.png) && Self.mp3.count > 1000)
                let avatar = try await store.put(Self.png, contentType: "image/png", owner: "uid-ada", kind: .heroAvatar)
                let audio = try await store.put(Self.mp3, contentType: "audio/mpeg", owner: "uid-ada", kind: .storyAudio)
                #expect(MediaKey.isWellFormed(avatar.key) && avatar.byteCount == Self.png.count && avatar.etag == "\"\(avatar.key)\"")
                #expect(avatar.owner == UserHash.logIdentifier("uid-ada") && store.ownerTag("uid-ada") == avatar.owner)

                // A second store (another replica) knows nothing in memory and finds both through the index.
                let replica = S3MediaStore(settings: settings, http: client, logger: Self.logger)
                #expect(try await replica.metadata(avatar.key) == avatar)
                #expect(try await replica.metadata(audio.key) == audio)
                #expect(try await replica.read(avatar.key, range: nil) == Self.png)
                #expect(try await replica.read(audio.key, range: nil) == Self.mp3)
                #expect(try await replica.read(audio.key, range: 100..<200) == Array(Self.mp3[100..<200]))
                #expect(try await replica.read(audio.key, range: Self.mp3.count - 5..<Self.mp3.count + 50) == Array(Self.mp3.suffix(5)))
                #expect(try await replica.read(audio.key, range: Self.mp3.count + 10..<Self.mp3.count + 20) == [])

                let missing = "0123456789abcdef0123456789abcdef"
                #expect(try await replica.metadata(missing) == nil)
                #expect(try await replica.read(missing, range: nil) == nil)
                #expect(try await replica.metadata("../keys/x") == nil)

                // The object sits at <prefix><kind>/<uid hash>/<key>.png with its type and owner, the raw uid nowhere.
                let name = store.objectName(key: avatar.key, kind: .heroAvatar, ownerTag: avatar.owner)
                #expect(name == "prod/hero-avatars/\(avatar.owner)/\(avatar.key).png")
                let signing = AWSSigV4(region: "us-east-1", service: "s3", accessKeyID: moto.accessKeyID, secretAccessKey: moto.secretAccessKey)
                let direct = try await client.execute(CurlRequest(
                    url: "\(moto.endpoint)/\(moto.bucket)/\(name)", headers: [CurlHeader("x-amz-content-sha256", S3Client.emptyPayloadHash)],
                    awsSigV4: signing
                ))
                #expect(direct.status == 200 && direct.body == Self.png)
                #expect(direct.header("content-type") == "image/png")
                #expect(direct.header("x-amz-meta-owner") == avatar.owner)
                let audioName = "prod/story-audio/\(audio.owner)/\(audio.key).mp3"
                let audioDirect = try await client.execute(CurlRequest(
                    url: "\(moto.endpoint)/\(moto.bucket)/\(audioName)", method: "HEAD",
                    headers: [CurlHeader("x-amz-content-sha256", S3Client.emptyPayloadHash)], awsSigV4: signing
                ))
                #expect(audioDirect.status == 200 && audioDirect.header("content-type") == "audio/mpeg")

                // Over 1 MiB (a generated 1024x1024 image is): libcurl then sends its own, unsigned Expect: 100-continue.
                var generator = SystemRandomNumberGenerator()
                let large = (0..<1_600_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let big = try await store.put(large, contentType: "image/png", owner: "uid-ada", kind: .storyIllustration)
                #expect(try await replica.read(big.key, range: nil) == large)
                #expect(try await replica.read(big.key, range: 1_048_000..<1_310_144) == Array(large[1_048_000..<1_310_144]))

                // Signature checking is on: the same GET unsigned is refused.
                let unsigned = try await client.execute(CurlRequest(url: "\(moto.endpoint)/\(moto.bucket)/\(name)"))
                #expect(unsigned.status == 403)
            }
        }
    }

    @Test("virtual-host style round trip; presigned URLs equal botocore's and fetch their object")
    func virtualHostStyleAndPresignedURL() async throws {
        try await withMotoServer { moto in
            try await self.withClient { client in
                // libcurl resolves <bucket>.localhost to the loopback address: virtual-host style with no DNS.
                let settings = Self.settings(
                    endpoint: "http://localhost:\(moto.port)", bucket: moto.bucket, credentials: Self.credentials(moto), addressing: .virtual
                )
                let store = S3MediaStore(settings: settings, http: client, logger: Self.logger)
                let object = try await store.put(Self.png, contentType: "image/png", owner: "uid-v", kind: .storyIllustration)
                let replica = S3MediaStore(settings: settings, http: client, logger: Self.logger)
                #expect(try await replica.read(object.key, range: nil) == Self.png)
                #expect(try await replica.read(object.key, range: 0..<8) == Array(Self.png.prefix(8)))
                let other = try await store.put(Self.mp3, contentType: "audio/mpeg", owner: "uid-v", kind: .storyAudio)
                let pathStore = S3MediaStore(
                    settings: Self.settings(endpoint: moto.endpoint, bucket: moto.bucket, credentials: Self.credentials(moto)),
                    http: client, logger: Self.logger
                )

                // Signed as botocore signs the same URL at the same second, in both styles.
                let now = Int(WallClock.now())
                let amzDate = S3Presigner.amzDate(secondsSince1970: now)
                let url = try #require(try await store.presignedURL(object.key, expiresSeconds: 900, now: now))
                let pathURL = try #require(try await pathStore.presignedURL(other.key, expiresSeconds: 60, now: now))
                #expect(url.hasPrefix("http://\(moto.bucket).localhost:\(moto.port)/story-illustrations/"))
                #expect(pathURL.hasPrefix("\(moto.endpoint)/\(moto.bucket)/story-audio/"))
                #expect(!url.contains(moto.secretAccessKey))
                for (signed, expires) in [(url, 900), (pathURL, 60)] {
                    let bare = String(signed.prefix { $0 != "?" })
                    let reference = try MotoServer.botocorePresignedURL(
                        bare, accessKeyID: moto.accessKeyID, secretAccessKey: moto.secretAccessKey, region: "us-east-1",
                        expiresSeconds: expires, amzDate: amzDate
                    )
                    #expect(signed == reference)
                }
                #expect(try await store.presignedURL("0123456789abcdef0123456789abcdef", expiresSeconds: 60, now: now) == nil)

                // Each URL reaches its object (moto cannot check presigned signatures: checks are off from here).
                try moto.disableSignatureChecks()
                let fetched = try await client.execute(CurlRequest(url: url))
                #expect(fetched.status == 200 && fetched.body == Self.png)
                let pathFetched = try await client.execute(CurlRequest(url: pathURL))
                #expect(pathFetched.status == 200 && pathFetched.body == Self.mp3)
            }
        }
    }

    @Test("a wrong secret is refused by the server: STORAGE_UNAVAILABLE, not a 500 and not a miss")
    func wrongSecret() async throws {
        try await withMotoServer { moto in
            try await self.withClient { client in
                let good = S3MediaStore(
                    settings: Self.settings(endpoint: moto.endpoint, bucket: moto.bucket, credentials: Self.credentials(moto)),
                    http: client, logger: Self.logger
                )
                let object = try await good.put(Self.png, contentType: "image/png", owner: "u", kind: .heroAvatar)
                let wrong = S3Credentials(accessKeyID: moto.accessKeyID, secretAccessKey: moto.secretAccessKey + "x")
                let bad = S3MediaStore(
                    settings: Self.settings(endpoint: moto.endpoint, bucket: moto.bucket, credentials: wrong), http: client, logger: Self.logger
                )
                await self.expectUnavailable { _ = try await bad.put(Self.png, contentType: "image/png", owner: "u", kind: .heroAvatar) }
                await self.expectUnavailable { _ = try await bad.metadata(object.key) }
                #expect(try await good.read(object.key, range: nil) == Self.png)
            }
        }
    }

    @Test("the server stopped: STORAGE_UNAVAILABLE; restarted: the same client works again")
    func stoppedAndRestarted() async throws {
        try await withMotoServer { moto in
            try await self.withClient { client in
                let before = S3MediaStore(
                    settings: Self.settings(endpoint: moto.endpoint, bucket: moto.bucket, credentials: Self.credentials(moto)),
                    http: client, logger: Self.logger
                )
                let kept = try await before.put(Self.mp3, contentType: "audio/mpeg", owner: "u", kind: .storyAudio)
                moto.kill()
                await self.expectUnavailable { _ = try await before.put(Self.png, contentType: "image/png", owner: "u", kind: .heroAvatar) }
                await self.expectUnavailable { _ = try await before.read(kept.key, range: 0..<10) }
                await self.expectUnavailable { _ = try await before.metadata("0123456789abcdef0123456789abcdef") }

                // moto keeps nothing across a restart: a new key pair and an empty bucket.
                try await moto.restart()
                let after = S3MediaStore(
                    settings: Self.settings(endpoint: moto.endpoint, bucket: moto.bucket, credentials: Self.credentials(moto)),
                    http: client, logger: Self.logger
                )
                let object = try await after.put(Self.png, contentType: "image/png", owner: "u", kind: .heroAvatar)
                #expect(try await after.read(object.key, range: nil) == Self.png)
            }
        }
    }

    @Test("a store that accepts and never answers, or closes, or answers 503: STORAGE_UNAVAILABLE within the deadline")
    func misbehavingServers() async throws {
        let behaviours: [LocalRawServer.Behavior] = [
            .neverRead, .closeAfterRequest, .resetAfterRequest,
            .reply(Array("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n".utf8)),
            .reply(Array("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n".utf8)),
        ]
        try await self.withClient { client in
            for behaviour in behaviours {
                try await withLocalRawServer(behaviour) { server in
                    let credentials = S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret")
                    let store = S3MediaStore(
                        settings: Self.settings(endpoint: server.baseURL, bucket: "bucket", credentials: credentials), http: client, logger: Self.logger
                    )
                    await self.expectUnavailable { _ = try await store.put([1, 2, 3], contentType: "image/png", owner: "u", kind: .heroAvatar) }
                    await self.expectUnavailable { _ = try await store.metadata("0123456789abcdef0123456789abcdef") }
                }
            }
        }
    }
}

/// Query-string SigV4 against AWS's documented example, and the date format.
@Suite("S3 presigned URLs")
struct S3PresignerTests {
    @Test("the GET example of the S3 documentation (Authenticating Requests: Using Query Parameters)")
    func awsExample() throws {
        let settings = S3Settings(
            endpoint: "https://s3.amazonaws.com", bucket: "examplebucket", region: "us-east-1", addressing: .virtual,
            credentials: S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
        )
        let address = try #require(S3Address(name: "test.txt", settings: settings))
        let url = S3Presigner(settings: settings).presignedGET(address, amzDate: "20130524T000000Z", expiresSeconds: 86400)
        #expect(url == "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
            + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z"
            + "&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
            + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    }

    @Test("amz dates", arguments: [(0, "19700101T000000Z"), (1_369_353_600, "20130524T000000Z"), (1_709_251_199, "20240229T235959Z")])
    func amzDate(_ seconds: Int, _ expected: String) {
        #expect(S3Presigner.amzDate(secondsSince1970: seconds) == expected)
    }

    @Test("credentials files: the variable form, the ~/.aws form, two bare lines; the secret never printed")
    func credentialsFile() {
        let forms = [
            "AWS_ACCESS_KEY_ID=AKID\nAWS_SECRET_ACCESS_KEY=s3cr3t/+x\n",
            "[default]\naws_access_key_id = AKID\naws_secret_access_key = s3cr3t/+x\n",
            "# comment\nAKID\ns3cr3t/+x\n",
        ]
        for text in forms {
            let parsed = S3Credentials.parse(text)
            #expect(parsed == S3Credentials(accessKeyID: "AKID", secretAccessKey: "s3cr3t/+x"), "\(text)")
            #expect(!"\(parsed.map(String.init(describing:)) ?? "")".contains("s3cr3t"))
        }
        #expect(S3Credentials.parse("AWS_ACCESS_KEY_ID=AKID\n") == nil)
        #expect(S3Credentials.parse("") == nil)
    }
}
