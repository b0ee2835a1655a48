import Foundation
import IDTokens
import Testing
import TestSupport

@Suite("KeySet and RSA keys")
struct KeySetTests {
    @Test("Google's x509 JSON with one usable certificate")
    func googleJSON() throws {
        let json = TestKeys.googleX509JSON(["kid-a": TestKeys.primaryCertificatePEM])
        let keys = try KeySet(googleX509JSON: json)
        #expect(keys.keyIDs == ["kid-a"])
        #expect(keys["kid-a"]?.modulusByteCount == 256)
        #expect(keys["kid-b"] == nil)
        #expect(keys.skippedKeyIDs.isEmpty)
    }

    @Test("several keys, sorted ids; EC, small-RSA, bad-PEM and non-string entries skipped")
    func mixed() throws {
        let second = TestKeys.other.selfSignedCertificatePEM(commonName: "second")
        var json = TestKeys.googleX509JSON([
            "b": TestKeys.primaryCertificatePEM, "a": second, "ec": TestKeys.ecCertificatePEM,
            "small": TestKeys.rsa1024CertificatePEM, "junk": "-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n",
        ])
        json.removeLast()
        json += Array(#", "num": 42}"#.utf8)
        let keys = try KeySet(googleX509JSON: json)
        #expect(keys.keyIDs == ["a", "b"])
        #expect(keys.skippedKeyIDs == ["ec", "junk", "num", "small"])
    }

    @Test("certs/dev: the dev key signs tokens that the dev certificate set verifies")
    func devCertificates() throws {
        // certs/dev/certs.json: {"<sha1 of the cert DER>": "-----BEGIN CERTIFICATE-----\n..."} (RSA-2048, self-signed);
        // certs/dev/signing-key.pem: the matching PKCS#8 private key. Project: storygate-dev.
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../certs/dev")
        let json = try Data(contentsOf: directory.appendingPathComponent("certs.json"))
        let pem = try String(contentsOf: directory.appendingPathComponent("signing-key.pem"), encoding: .utf8)
        let keys = try KeySet(googleX509JSON: [UInt8](json))
        let kid = try #require(keys.keyIDs.first)
        let token = TokenMinter(key: try RSAPrivateKey(pem: pem), keyID: kid).mint(uid: "dev-user", projectID: "storygate-dev", now: 1_700_000_000)
        let verifier = TokenVerifier(projects: [FirebaseClaimRules(projectID: "storygate-dev", clockSkew: 0)])
        #expect(try verifier.verify(token, now: 1_700_000_001, keys: { _ in keys }).uid == "dev-user")
    }

    @Test("refused documents", arguments: [
        "", "[]", "{", #"{"a":"x",}"#, #"{"a":"x","a":"y"}"#, "null", #""pem""#,
    ])
    func invalidJSON(text: String) {
        #expect(throws: KeySetError.invalidJSON) { try KeySet(googleX509JSON: Array(text.utf8)) }
    }

    @Test("no usable key throws")
    func noUsableKeys() {
        #expect(throws: KeySetError.noUsableKeys) { try KeySet(googleX509JSON: Array("{}".utf8)) }
        #expect(throws: KeySetError.noUsableKeys) {
            try KeySet(googleX509JSON: TestKeys.googleX509JSON(["ec": TestKeys.ecCertificatePEM, "small": TestKeys.rsa1024CertificatePEM]))
        }
    }

    @Test("single certificates: EC refused, RSA-1024 refused, garbage refused")
    func singleCertificates() {
        #expect(throws: KeySetError.notRSA) { try RSAPublicKey(x509PEM: TestKeys.ecCertificatePEM) }
        #expect(throws: KeySetError.keyTooSmall(bits: 1024)) { try RSAPublicKey(x509PEM: TestKeys.rsa1024CertificatePEM) }
        #expect(throws: KeySetError.invalidPEM) { try RSAPublicKey(x509PEM: "not a pem") }
        #expect(throws: KeySetError.invalidPEM) { try RSAPublicKey(x509PEM: TestKeys.primary.pem) }
    }

    @Test("KeySetError messages carry no key material")
    func errorMessages() {
        #expect(KeySetError.keyTooSmall(bits: 1024).description.contains("1024"))
        #expect(KeySetError.invalidJSON.shortDescription == "invalid_json")
    }

    @Test("private key PEM round trip, public half, and signatures")
    func privateKey() throws {
        let key = TestKeys.primary
        let reloaded = try RSAPrivateKey(pem: key.pem)
        #expect(reloaded.pem == key.pem)
        #expect(key.pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(key.bits == 2048)
        let message = Array("hello".utf8)
        let signature = reloaded.signRS256(message)
        #expect(signature.count == 256)
        let publicKey = try key.publicKey()
        #expect(publicKey.verifyRS256(signature: signature, signedBytes: message))
        #expect(!publicKey.verifyRS256(signature: signature, signedBytes: Array("hellp".utf8)))
        #expect(!publicKey.verifyRS256(signature: signature.dropLast(), signedBytes: message))
        #expect(!publicKey.verifyRS256(signature: [UInt8](), signedBytes: message))
        #expect(throws: KeySetError.invalidPEM) { try RSAPrivateKey(pem: "garbage") }
    }

    @Test("a raw private operation of a correct encoding is the RS256 signature")
    func rawPrivateOperation() {
        let message = Array("message".utf8)
        let block = TokenPKCS1.encode(digestInfo: TokenPKCS1.sha256Prefix + TokenDigests.sha256(message), length: 256)
        #expect(TestKeys.primary.rawPrivateOperation(block) == TestKeys.primary.signRS256(message))
    }

    @Test("RSA-1024 keys can be generated but their public half is refused")
    func smallGeneratedKey() {
        let small = RSAPrivateKey.generate(bits: 1024)
        #expect(throws: KeySetError.keyTooSmall(bits: 1024)) { try small.publicKey() }
    }

    @Test("concurrent verification with one key is safe")
    func concurrentVerification() async {
        let message = Array("concurrent".utf8)
        let signature = TestKeys.primary.signRS256(message)
        let key = TestKeys.primaryPublicKey
        await withTaskGroup(of: Bool.self) { group in
            for index in 0..<16 {
                group.addTask {
                    (0..<20).allSatisfy { _ in
                        key.verifyRS256(signature: signature, signedBytes: index.isMultiple(of: 2) ? message : message + [1]) == index.isMultiple(of: 2)
                    }
                }
            }
            for await ok in group { #expect(ok) }
        }
    }
}
