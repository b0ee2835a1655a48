import IDTokens
import Testing
import TestSupport

@Suite("Identity assertion")
struct IdentityAssertionTests {
    /// 32 ASCII bytes, the shortest key accepted.
    static let key = IdentityAssertionKey(Array("0123456789abcdef0123456789abcdef".utf8))!
    static let otherKey = IdentityAssertionKey(Array("fedcba9876543210fedcba9876543210".utf8))!
    /// `v1.1700000000.<"alice">.<"req-1">.<HMAC-SHA256(key, "v1.1700000000.YWxpY2U.cmVxLTE")>`, computed with
    /// Python's `hmac` module (the verification snippet in docs/proxy.md).
    static let fixture = "v1.1700000000.YWxpY2U.cmVxLTE.X8Wujm2IBuLKx2TbhB7PmKC5cSxSiJhvtTleJio3qiE"
    static let issued = 1_700_000_000.0

    @Test("signing matches an independent implementation (Python's hmac, fixture)")
    func fixtureVector() throws {
        #expect(IdentityAssertion.sign(uid: "alice", requestID: "req-1", now: Self.issued + 0.9, key: Self.key) == Self.fixture)
        let assertion = try IdentityAssertion.verify(header: Self.fixture, key: Self.key, now: Self.issued + 10)
        #expect(assertion == IdentityAssertion(uid: "alice", requestID: "req-1", issuedAt: 1_700_000_000))
    }

    @Test("the MAC is HMAC-SHA256 over everything before the last dot (pure-Swift HMAC cross-check)")
    func crossCheck() {
        let header = IdentityAssertion.sign(uid: "ünïcode-uid/with.dots", requestID: "abc:def@1", now: Self.issued, key: Self.otherKey)
        let lastDot = header.lastIndex(of: ".")!
        let signed = Array(header[..<lastDot].utf8)
        let mac = TokenDigests.hmacSHA256(key: Array("fedcba9876543210fedcba9876543210".utf8), message: signed)
        #expect(String(header[header.index(after: lastDot)...]) == Base64URL.encode(mac))
    }

    @Test("round trip of uids and request ids, unicode included")
    func roundTrip() throws {
        for (uid, requestID) in [("a", "r"), ("user.with.dots", "0123456789abcdef"), ("ü名前", "id/with+chars=")] {
            let header = IdentityAssertion.sign(uid: uid, requestID: requestID, now: Self.issued, key: Self.key)
            let assertion = try IdentityAssertion.verify(header: header, key: Self.key, now: Self.issued)
            #expect(assertion.uid == uid)
            #expect(assertion.requestID == requestID)
            #expect(assertion.issuedAt == 1_700_000_000)
        }
    }

    @Test("another key, or any altered field: bad_signature")
    func badSignature() {
        #expect(Self.reason(Self.fixture, key: Self.otherKey) == .badSignature)
        let parts = Self.fixture.split(separator: ".").map(String.init)
        let altered = [
            ["v1", "1700000001", parts[2], parts[3], parts[4]],  // time
            ["v1", parts[1], Base64URL.encode(Array("mallory".utf8)), parts[3], parts[4]],  // uid
            ["v1", parts[1], parts[2], Base64URL.encode(Array("req-2".utf8)), parts[4]],  // request id
            ["v1", parts[1], parts[2], parts[3], Base64URL.encode([UInt8](repeating: 0, count: 32))],  // MAC
        ]
        for fields in altered {
            #expect(Self.reason(fields.joined(separator: "."), now: Self.issued + 1) == .badSignature)
        }
    }

    @Test("age: at most maxAge old, at most futureSkew ahead (clock injected)")
    func age() throws {
        _ = try IdentityAssertion.verify(header: Self.fixture, key: Self.key, now: Self.issued + 60)
        _ = try IdentityAssertion.verify(header: Self.fixture, key: Self.key, now: Self.issued - 5)
        #expect(Self.reason(Self.fixture, now: Self.issued + 60.5) == .expired)
        #expect(Self.reason(Self.fixture, now: Self.issued - 5.5) == .issuedInFuture)
        #expect(throws: IdentityAssertionError.self) {
            try IdentityAssertion.verify(header: Self.fixture, key: Self.key, now: Self.issued + 11, maxAge: 10)
        }
        _ = try IdentityAssertion.verify(header: Self.fixture, key: Self.key, now: Self.issued - 30, futureSkew: 30)
    }

    @Test("malformed values and other versions are refused", arguments: [
        ("", IdentityAssertionError.Reason.malformed),
        ("v1.1700000000.YWxpY2U.cmVxLTE", .malformed),  // four parts
        ("v1.1700000000.YWxpY2U.cmVxLTE.X8Wujm2IBuLKx2TbhB7PmKC5cSxSiJhvtTleJio3qiE.x", .malformed),  // six parts
        ("v2.1700000000.YWxpY2U.cmVxLTE.X8Wujm2IBuLKx2TbhB7PmKC5cSxSiJhvtTleJio3qiE", .unsupportedVersion),
        ("V1.1700000000.YWxpY2U.cmVxLTE.X8Wujm2IBuLKx2TbhB7PmKC5cSxSiJhvtTleJio3qiE", .unsupportedVersion),
        ("v1.01700000000.YWxpY2U.cmVxLTE.X8Wujm2IBuLKx2TbhB7PmKC5cSxSiJhvtTleJio3qiE", .malformed),  // leading zero
        ("v1.+1700000000.YWxpY2U.cmVxLTE.X8Wujm2IBuLKx2TbhB7PmKC5cSxSiJhvtTleJio3qiE", .malformed),  // sign
        ("v1.1700000000000.YWxpY2U.cmVxLTE.X8Wujm2IBuLKx2TbhB7PmKC5cSxSiJhvtTleJio3qiE", .malformed),  // 13 digits
        ("v1..YWxpY2U.cmVxLTE.X8Wujm2IBuLKx2TbhB7PmKC5cSxSiJhvtTleJio3qiE", .malformed),  // empty time
        ("v1.1700000000..cmVxLTE.X8Wujm2IBuLKx2TbhB7PmKC5cSxSiJhvtTleJio3qiE", .malformed),  // empty uid
        ("v1.1700000000.YWxpY2U=.cmVxLTE.X8Wujm2IBuLKx2TbhB7PmKC5cSxSiJhvtTleJio3qiE", .malformed),  // padding
        ("v1.1700000000.YWxpY2U.cmVxLTE.X8Wujm2IBuLKx2TbhB7PmKC5cSxSiJhvtTleJio3qi", .malformed),  // 31-byte MAC
        ("v1.1700000000.YWxpY2U.cmVxLTE.X8Wujm2IBuLKx2TbhB7PmKC5cSxSiJhvtTleJio3qiE ", .malformed),  // trailing space
        ("v1.1700000000.gA.cmVxLTE.X8Wujm2IBuLKx2TbhB7PmKC5cSxSiJhvtTleJio3qiE", .malformed),  // uid not UTF-8 (0x80)
    ])
    func malformed(header: String, reason: IdentityAssertionError.Reason) {
        #expect(Self.reason(header, now: Self.issued) == reason)
    }

    @Test("an overlong header is refused")
    func overlong() {
        let header = IdentityAssertion.sign(uid: String(repeating: "u", count: 800), requestID: "r", now: Self.issued, key: Self.key)
        #expect(header.utf8.count > IdentityAssertion.maximumLength)
        #expect(Self.reason(header, now: Self.issued) == .malformed)
    }

    @Test("keys shorter than 32 bytes are refused; keys never print")
    func keys() {
        #expect(IdentityAssertionKey([UInt8](repeating: 1, count: 31)) == nil)
        #expect(IdentityAssertionKey([UInt8](repeating: 1, count: 32)) != nil)
        #expect("\(Self.key)" == "<redacted>")
    }

    @Test("error messages never quote the assertion")
    func messages() {
        do {
            _ = try IdentityAssertion.verify(header: Self.fixture, key: Self.otherKey, now: Self.issued)
            Issue.record("verified with the wrong key")
        } catch {
            #expect(!error.message.contains("YWxpY2U"))
            #expect(!error.message.contains("X8Wujm2I"))
        }
    }

    private static func reason(_ header: String, key: IdentityAssertionKey = Self.key, now: Double = Self.issued) -> IdentityAssertionError.Reason? {
        do {
            _ = try IdentityAssertion.verify(header: header, key: key, now: now)
            return nil
        } catch {
            return error.reason
        }
    }
}
