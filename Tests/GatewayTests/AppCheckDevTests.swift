import CurlHTTP
import Foundation
import Gateway
import GatewayConfig
import IDTokens
import Testing
import TestSupport

/// `storygate mint-app-check` and the dev JWKS: dev tokens verify against `certs/dev/app-check-jwks.json`.
@Suite("App Check in dev mode")
struct AppCheckDevTests {
    static let jwksPath = GatewayHarness.repositoryRoot + "/certs/dev/" + DevCertificates.appCheckJWKSFile

    @Test("the dev JWKS is the dev signing key's public half")
    func devJWKS() throws {
        let keys = try KeySet(jwks: try FileBytes.read(path: Self.jwksPath))
        let key = try RSAPrivateKey(pem: String(decoding: try FileBytes.read(path: GatewayHarness.repositoryRoot + "/certs/dev/signing-key.pem"), as: UTF8.self))
        let certificates = try KeySet(googleX509JSON: try FileBytes.read(path: GatewayHarness.repositoryRoot + "/certs/dev/certs.json"))
        #expect(keys.keyIDs == certificates.keyIDs)
        #expect(keys[keys.keyIDs[0]]?.modulus == (try key.publicKey()).modulus)
    }

    @Test("mint-app-check prints a token the dev JWKS verifies, for the dev project unless told otherwise")
    func mint() async throws {
        let result = try await CommandLineTests.run(["mint-app-check", "--app-id", "1:100000000000:web:abc", "--ttl", "120"], environment: ["ENV": "dev"])
        #expect(result.status == 0, "\(result.error)")
        let token = result.output.trimmingCharacters(in: .newlines)
        let keys = try KeySet(jwks: try FileBytes.read(path: Self.jwksPath))
        let rules = AppCheckClaimRules(projectNumber: AppCheckSettings.devProjectNumber, projectID: GatewayConfiguration.devProjectID, clockSkew: 5)
        let verified = try AppCheckTokenVerifier(rules: rules).verify(token, now: WallClock.now(), keys: keys)
        #expect(verified.appID == "1:100000000000:web:abc")
        #expect(verified.expiresAt - verified.issuedAt == 120)

        let other = try await CommandLineTests.run(
            ["mint-app-check", "--app-id", "a"], environment: ["ENV": "dev", "FIREBASE_PROJECT_NUMBER": "42", "FIREBASE_PROJECT_ID": "my-app"]
        )
        let otherRules = AppCheckClaimRules(projectNumber: "42", projectID: "my-app", clockSkew: 5)
        #expect(throws: Never.self) { try AppCheckTokenVerifier(rules: otherRules).verify(other.output.trimmingCharacters(in: .newlines), now: WallClock.now(), keys: keys) }
    }

    @Test("mint-app-check refuses to run outside dev mode and checks its options")
    func refusals() async throws {
        let prod = try await CommandLineTests.run(["mint-app-check", "--app-id", "a"])
        #expect(prod.status == 2)
        #expect(prod.error.contains("dev only"))
        #expect(prod.output.isEmpty)
        let missing = try await CommandLineTests.run(["mint-app-check"], environment: ["ENV": "dev"])
        #expect(missing.status != 0)
        let badTTL = try await CommandLineTests.run(["mint-app-check", "--app-id", "a", "--ttl", "0"], environment: ["ENV": "dev"])
        #expect(badTTL.status != 0)
        #expect(badTTL.error.contains("--ttl"))
    }

    @Test("a dev gateway with App Check enforced trusts the dev JWKS: a minted token passes, none is refused")
    func devGateway() async throws {
        let directory = GatewayHarness.repositoryRoot + "/certs/dev"
        let key = try RSAPrivateKey(pem: String(decoding: try FileBytes.read(path: directory + "/signing-key.pem"), as: UTF8.self))
        let keyID = try KeySet(jwks: try FileBytes.read(path: Self.jwksPath)).keyIDs[0]
        let token = AppCheckTokenMinter(key: key, keyID: keyID).mint(
            appID: "1:100000000000:web:dev", projectNumber: AppCheckSettings.devProjectNumber, projectID: TestKeys.projectID, now: WallClock.now()
        )
        try await GatewayHarness.run(configure: { configuration in
            configuration.mode = .dev
            configuration.appCheck.mode = .enforce
        }) { gateway in
            let refused = try await gateway.get("/v1/me", headers: [("X-User-Id", "alice")])
            #expect(refused.status == 401)
            #expect(refused.errorCode == "APP_CHECK_FAILED")
            let passed = try await gateway.get("/v1/me", headers: [("X-User-Id", "alice"), ("X-Firebase-AppCheck", token)])
            #expect(passed.status == 200, "\(passed.text)")
        }
    }
}
