import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import IDTokens
import Testing
import TestSupport

/// The gateway on a real socket, certificates from a local x509 server over libcurl, requests over libcurl.
@Suite("Authentication end to end")
struct AuthenticationEndToEndTests {
    let minter = TokenMinter(key: TestKeys.primary, keyID: TestKeys.primaryKeyID)

    @Test("a valid Firebase ID token: 200 with uid, source, claims and expiry")
    func validToken() async throws {
        try await GatewayHarness.run { gateway in
            let now = WallClock.now()
            let token = self.minter.mint(uid: "alice", projectID: TestKeys.projectID, now: now, ttl: 600)
            let response = try await gateway.me(token: token)
            #expect(response.status == 200)
            let json = response.json
            #expect(json["uid"] as? String == "alice")
            #expect(json["source"] as? String == "firebase")
            let claims = json["claims"] as? [String: Any]
            #expect(claims?["sub"] as? String == "alice")
            #expect(claims?["aud"] as? String == TestKeys.projectID)
            #expect((json["expiresAt"] as? Double).map { abs($0 - (now + 600).rounded(.down)) <= 1 } == true)
            #expect(response.header("cache-control") == "no-store")
            // the same token again: answered from the verified-token cache, same answer
            let again = try await gateway.me(token: token)
            #expect(again.status == 200)
            #expect(again.json["uid"] as? String == "alice")
        }
    }

    @Test("no credentials: 401 with a Bearer challenge and no error code")
    func missing() async throws {
        try await GatewayHarness.run { gateway in
            let response = try await gateway.get("/v1/me")
            #expect(response.status == 401)
            #expect(response.errorCode == "UNAUTHENTICATED")
            #expect(response.header("www-authenticate") == "Bearer realm=\"storygate\"")
            #expect(response.header("content-type") == "application/json")
        }
    }

    @Test("credentials in another scheme: 401 with the Bearer challenge, saying the scheme is not accepted")
    func otherScheme() async throws {
        try await GatewayHarness.run { gateway in
            for value in ["Basic dXNlcjpwYXNz", "Digest username=\"a\""] {
                let response = try await gateway.get("/v1/me", headers: [("Authorization", value)])
                #expect(response.status == 401)
                #expect(response.errorCode == "UNAUTHENTICATED")
                #expect(response.header("www-authenticate") == "Bearer realm=\"storygate\"")
                let message = (response.json["error"] as? [String: Any])?["message"] as? String
                #expect(message?.contains("scheme is not accepted") == true, "\(message ?? "")")
                #expect(message?.contains("dXNlcjpwYXNz") == false)
            }
        }
    }

    @Test("rejected tokens: 401 invalid_token naming the rule, never echoing the token", arguments: [true, false])
    func rejected(failureLimit: Bool) async throws {
        try await GatewayHarness.run(configure: { if !failureLimit { $0.authFailureLimit = nil } }) { gateway in
            let now = WallClock.now()
            let cases: [(String, String, String)] = [
                ("expired", self.minter.mint(uid: "bob", projectID: TestKeys.projectID, now: now - 7200, ttl: 3600), "expired"),
                ("wrong audience", self.minter.mint(uid: "bob", projectID: "another-project", now: now), "aud"),
                (
                    "bad signature",
                    TokenMinter(key: TestKeys.other, keyID: TestKeys.primaryKeyID).mint(uid: "bob", projectID: TestKeys.projectID, now: now),
                    "signature"
                ),
                ("malformed", "abc.def", "base64url"),
                // Not token68: checked once the verified-token cache has not found it (RFC 9110 §11.2).
                ("not token68", "abc!def.ghi.jkl", "cannot have"),
                ("not token68 at the end of a valid token", self.minter.mint(uid: "bob", projectID: TestKeys.projectID, now: now) + "!", "cannot have"),
                ("token68 but padded", self.minter.mint(uid: "bob", projectID: TestKeys.projectID, now: now) + "=", "base64url"),
                ("unknown key", TokenMinter(key: TestKeys.primary, keyID: "no-such-kid").mint(uid: "bob", projectID: TestKeys.projectID, now: now), "key"),
            ]
            for (name, token, word) in cases {
                let response = try await gateway.me(token: token)
                #expect(response.status == 401, "\(name)")
                #expect(response.errorCode == "UNAUTHENTICATED", "\(name)")
                let challenge = response.header("www-authenticate") ?? ""
                #expect(challenge.hasPrefix("Bearer realm=\"storygate\", error=\"invalid_token\""), "\(name): \(challenge)")
                let message = response.errorMessage ?? ""
                #expect(message.lowercased().contains(word), "\(name): \(message)")
                #expect(!response.text.contains(token), "\(name) echoed the token")
                #expect(!challenge.contains(token))
            }
        }
    }

    @Test("X-User-Id is never trusted in prod")
    func userIDInProd() async throws {
        try await GatewayHarness.run { gateway in
            let response = try await gateway.get("/v1/me", headers: [("X-User-Id", "mallory")])
            #expect(response.status == 401)
            #expect(!response.text.contains("mallory"))
        }
    }

    @Test("dev mode: X-User-Id is accepted, a bad one is 400, a dev-minted token is verified and wins")
    func devMode() async throws {
        try await GatewayHarness.run(configure: { $0.mode = .dev; $0.firebaseProjectID = nil }) { gateway in
            let dev = try await gateway.get("/v1/me", headers: [("X-User-Id", "kid-42")])
            #expect(dev.status == 200)
            #expect(dev.json["uid"] as? String == "kid-42")
            #expect(dev.json["source"] as? String == "dev")
            #expect(dev.json["claims"] as? [String: Any] != nil)

            let bad = try await gateway.get("/v1/me", headers: [("X-User-Id", "kid 42")])
            #expect(bad.status == 400)
            #expect(bad.errorCode == "INVALID_ARGUMENT")

            let devKey = try RSAPrivateKey(
                pem: String(decoding: try FileBytes.read(path: GatewayHarness.repositoryRoot + "/certs/dev/signing-key.pem"), as: UTF8.self)
            )
            let keys = try KeySet(googleX509JSON: try FileBytes.read(path: GatewayHarness.repositoryRoot + "/certs/dev/certs.json"))
            let token = TokenMinter(key: devKey, keyID: keys.keyIDs[0]).mint(uid: "token-user", projectID: GatewayConfiguration.devProjectID, now: WallClock.now())
            let verified = try await gateway.get("/v1/me", headers: [("Authorization", "Bearer \(token)"), ("X-User-Id", "header-user")])
            #expect(verified.status == 200)
            #expect(verified.json["uid"] as? String == "token-user")
            #expect(verified.json["source"] as? String == "firebase")

            // a dev-key token for a project dev mode does not trust is rejected
            let foreign = TokenMinter(key: devKey, keyID: keys.keyIDs[0]).mint(uid: "x", projectID: "someone-else", now: WallClock.now())
            #expect(try await gateway.me(token: foreign).status == 401)
        }
    }

    @Test("prod never trusts the dev certificate")
    func prodIgnoresDevCertificate() async throws {
        try await GatewayHarness.run { gateway in
            let devKey = try RSAPrivateKey(
                pem: String(decoding: try FileBytes.read(path: GatewayHarness.repositoryRoot + "/certs/dev/signing-key.pem"), as: UTF8.self)
            )
            let keys = try KeySet(googleX509JSON: try FileBytes.read(path: GatewayHarness.repositoryRoot + "/certs/dev/certs.json"))
            for project in [GatewayConfiguration.devProjectID, TestKeys.projectID] {
                let token = TokenMinter(key: devKey, keyID: keys.keyIDs[0]).mint(uid: "x", projectID: project, now: WallClock.now())
                #expect(try await gateway.me(token: token).status == 401)
            }
        }
    }
}
