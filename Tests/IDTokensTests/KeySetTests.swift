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

    @Test("a signature at or above the modulus is refused, even one that is a valid signature plus the modulus")
    func signatureRange() throws {
        let key = TestKeys.primaryPublicKey
        let modulus = key.modulus
        #expect(modulus.count == 256 && modulus[0] >= 0x80)
        let message = Array("range".utf8)
        #expect(!key.verifyRS256(signature: modulus, signedBytes: message))
        // s + n is s again modulo n: a verifier that reduces instead of refusing would accept it (RFC 8017 §5.2.2:
        // "signature representative out of range"). It fits in the modulus length for some messages.
        var found: (message: [UInt8], shifted: [UInt8])?
        for attempt in 0..<5_000 where found == nil {
            let message = Array("range \(attempt)".utf8)
            if let shifted = Self.add(TestKeys.primary.signRS256(message), modulus) { found = (message, shifted) }
        }
        let (signedMessage, shifted) = try #require(found)
        #expect(key.verifyRS256(signature: TestKeys.primary.signRS256(signedMessage), signedBytes: signedMessage))
        #expect(!key.verifyRS256(signature: shifted, signedBytes: signedMessage))
    }

    /// `a + b` as big-endian bytes of the same length, or nil when it overflows.
    private static func add(_ a: [UInt8], _ b: [UInt8]) -> [UInt8]? {
        var sum = [UInt8](repeating: 0, count: a.count)
        var carry = 0
        for index in a.indices.reversed() {
            let total = Int(a[index]) + Int(b[index]) + carry
            sum[index] = UInt8(total & 0xFF)
            carry = total >> 8
        }
        return carry == 0 ? sum : nil
    }

    @Test("a public key whose exponent cannot verify is refused: 1, even, or not below the modulus", arguments: [
        ("1", [UInt8]([1])), ("2", [2]), ("65536", [1, 0, 0]), ("the modulus", []),
    ])
    func unusableExponent(_ name: String, _ exponent: [UInt8]) {
        let modulus = TestKeys.primaryPublicKey.modulus
        let pem = Self.publicKeyPEM(modulus: modulus, exponent: exponent.isEmpty ? modulus : exponent)
        #expect(throws: KeySetError.unusableKey) { try RSAPublicKey(publicKeyPEM: pem) }
    }

    @Test("a public key with exponent 3 is usable")
    func exponentThree() throws {
        let pem = Self.publicKeyPEM(modulus: TestKeys.primaryPublicKey.modulus, exponent: [3])
        #expect(try RSAPublicKey(publicKeyPEM: pem).bits == 2048)
    }

    @Test("signatures verify under short and long public exponents, and altered ones do not", arguments: [
        ("3", [UInt8]([3])), ("17", [17]), ("65537", [1, 0, 1]), ("2^32 - 1", [0xFF, 0xFF, 0xFF, 0xFF]),
        ("2^32 + 15", [1, 0, 0, 0, 0x0F]), ("96 bits", [0x9C, 0x2B, 0x11, 0x07, 0x85, 0x43, 0xE1, 0x2D, 0x6A, 0x0F, 0x33, 0x01]),
    ])
    func publicExponents(_ name: String, _ exponent: [UInt8]) throws {
        // Up to 32 bits the key runs its own square-and-multiply chain, above that BN_mod_exp_mont.
        let key = RSAPrivateKey.generate(bits: 2048, publicExponent: exponent)
        let publicKey = try key.publicKey()
        for index in 0..<8 {
            let message = Array("exponent \(name), message \(index)".utf8)
            let signature = key.signRS256(message)
            #expect(publicKey.verifyRS256(signature: signature, signedBytes: message))
            #expect(!publicKey.verifyRS256(signature: signature, signedBytes: message + [0]))
            var altered = signature
            altered[1 + index * 31] ^= 0x10
            #expect(!publicKey.verifyRS256(signature: altered, signedBytes: message))
            #expect(!TestKeys.primaryPublicKey.verifyRS256(signature: signature, signedBytes: message))
        }
    }

    /// A SubjectPublicKeyInfo PEM for an RSA key with these big-endian numbers (RFC 8017 A.1.1, RFC 5280 §4.1).
    private static func publicKeyPEM(modulus: [UInt8], exponent: [UInt8]) -> String {
        func der(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
            let count = content.count
            let length: [UInt8] = count < 0x80 ? [UInt8(count)] : count < 0x100 ? [0x81, UInt8(count)] : [0x82, UInt8(count >> 8), UInt8(count & 0xFF)]
            return [tag] + length + content
        }
        func integer(_ bytes: [UInt8]) -> [UInt8] { der(0x02, bytes[0] >= 0x80 ? [0] + bytes : bytes) }
        let rsaEncryption: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00]
        let key = der(0x30, integer(modulus) + integer(exponent))
        let info = der(0x30, der(0x30, rsaEncryption) + der(0x03, [0] + key))
        let base64 = Data(info).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN PUBLIC KEY-----\n\(base64)\n-----END PUBLIC KEY-----\n"
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
