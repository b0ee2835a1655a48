import Synchronization
import Testing
import TestSupport

@testable import IDTokens

@Suite("Key sets from a JWKS (App Check's key format)")
struct JWKSKeySetTests {
    static let n = Base64URL.encode(TestKeys.primaryPublicKey.modulus)
    static let e = Base64URL.encode(TestKeys.primaryPublicKey.exponent)

    static func jwks(_ entries: [String]) -> [UInt8] {
        Array(("{\"keys\":[" + entries.joined(separator: ",") + "]}").utf8)
    }

    static func key(kid: String = "a", kty: String = #""RSA""#, n: String = "\"\(n)\"", e: String = "\"\(e)\"", extra: String = #","alg":"RS256","use":"sig""#) -> String {
        "{\"kty\":\(kty),\"kid\":\"\(kid)\",\"n\":\(n),\"e\":\(e)\(extra)}"
    }

    @Test("n and e become the same public key as the certificate's")
    func roundTrip() throws {
        let keys = try KeySet(jwks: Self.jwks([Self.key()]))
        #expect(keys.keyIDs == ["a"])
        #expect(keys["a"]?.modulus == TestKeys.primaryPublicKey.modulus)
        #expect(keys["a"]?.publicKeyPEM == TestKeys.primaryPublicKey.publicKeyPEM)
        #expect(TestKeys.primaryPublicKey.exponent == [0x01, 0x00, 0x01])
    }

    @Test("alg and use may be absent; other members are ignored")
    func optionalMembers() throws {
        let keys = try KeySet(jwks: Self.jwks([Self.key(extra: ""), Self.key(kid: "b", extra: #","x5t":"q","key_ops":["verify"]"#)]))
        #expect(keys.keyIDs == ["a", "b"])
    }

    @Test("unusable keys are skipped and named", arguments: [
        ("EC key", key(kid: "x", kty: #""EC""#)),
        ("kty missing", "{\"kid\":\"x\",\"n\":\"\(n)\",\"e\":\"\(e)\"}"),
        ("alg RS512", key(kid: "x", extra: #","alg":"RS512""#)),
        ("alg not a string", key(kid: "x", extra: #","alg":1"#)),
        ("use enc", key(kid: "x", extra: #","use":"enc""#)),
        ("n padded", key(kid: "x", n: "\"\(n)=\"")),
        ("n standard base64", key(kid: "x", n: "\"+" + n.dropFirst() + "\"")),
        ("n missing", "{\"kty\":\"RSA\",\"kid\":\"x\",\"e\":\"\(e)\"}"),
        ("n a number", key(kid: "x", n: "5")),
        ("e empty", key(kid: "x", e: #""""#)),
        ("e even", key(kid: "x", e: #""AQAA""#)),
        ("e of 1", key(kid: "x", e: #""AQ""#)),
        ("1024-bit modulus", key(kid: "x", n: "\"" + String(n.prefix(171)) + "\"")),
    ])
    func skipped(_ name: String, _ entry: String) throws {
        let keys = try KeySet(jwks: Self.jwks([Self.key(), entry]))
        #expect(keys.keyIDs == ["a"], "\(name)")
        #expect(keys.skippedKeyIDs == ["x"], "\(name)")
    }

    @Test("a key without a kid is skipped by its index; a kid twice is not trusted at all")
    func keyIDs() throws {
        let keys = try KeySet(jwks: Self.jwks([Self.key(), "{\"kty\":\"RSA\",\"n\":\"\(Self.n)\",\"e\":\"\(Self.e)\"}", Self.key(kid: "d"), Self.key(kid: "d")]))
        #expect(keys.keyIDs == ["a"])
        #expect(keys.skippedKeyIDs == ["#1", "d"])
    }

    @Test("documents that are not a JWKS are refused", arguments: [
        "", "[]", "{}", #"{"keys":{}}"#, #"{"keys":"x"}"#, #"{"keys":[1]}"#, #"{"keys":[[]]}"#, #"{"keys":[],"keys":[]}"#, #"{"keys":[{}],}"#,
    ])
    func invalid(_ text: String) {
        #expect(throws: KeySetError.invalidJWKS) { try KeySet(jwks: Array(text.utf8)) }
    }

    @Test("a JWKS without a usable key is refused")
    func noUsableKeys() {
        #expect(throws: KeySetError.noUsableKeys) { try KeySet(jwks: Self.jwks([])) }
        #expect(throws: KeySetError.noUsableKeys) { try KeySet(jwks: Self.jwks([Self.key(kty: #""oct""#)])) }
    }

    @Test("the store reads its source in its format")
    func storeFormat() async throws {
        let source = ScriptedCertificateSource()
        source.state.withLock { $0.document = CertificateDocument(body: Self.jwks([Self.key()]), maxAge: 600) }
        let jwksStore = CertificateStore(projectID: "app-check", source: source, format: .jwks, logger: CertificateStoreTests.logger)
        await jwksStore.refresh()
        #expect(jwksStore.keys?.keyIDs == ["a"])
        let x509Store = CertificateStore(projectID: "p", source: source, logger: CertificateStoreTests.logger)
        await x509Store.refresh()
        #expect(x509Store.keys == nil)
        #expect(x509Store.fetchCounters.failed == 1)
    }
}
