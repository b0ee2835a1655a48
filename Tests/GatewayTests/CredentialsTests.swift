import HTTPTypes
import Testing

@testable import Gateway

@Suite("Credential extraction (RFC 6750 §2.1)")
struct CredentialsTests {
    private func extract(_ fields: [(String, String)], dev: Bool = false) throws(GatewayError) -> Credentials {
        var headers = HTTPFields()
        for (name, value) in fields { headers.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return try Credentials.extract(from: headers, trustUserIDHeader: dev)
    }

    @Test("the Bearer scheme is case-insensitive and takes one or more spaces")
    func bearerScheme() throws {
        #expect(try self.extract([("Authorization", "Bearer a.b.c")]) == .bearer("a.b.c"))
        // Every token68 character, then padding (RFC 9110 §11.2).
        #expect(try self.extract([("Authorization", "Bearer azAZ09-._~+/==")]) == .bearer("azAZ09-._~+/=="))
        #expect(try self.extract([("Authorization", "bearer a.b.c")]) == .bearer("a.b.c"))
        #expect(try self.extract([("Authorization", "BEARER    a.b.c")]) == .bearer("a.b.c"))
    }

    @Test("token68, character by character: every visible ASCII character inside a token and at its end")
    func token68Characters() throws {
        let token68 = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/")
        for scalar in (0x21...0x7E).compactMap(Unicode.Scalar.init) {
            let character = Character(scalar)
            let inside = "a\(character)b"
            let accepted = try self.extract([("Authorization", "Bearer " + inside)]) == .bearer(Substring(inside))
            #expect(accepted == token68.contains(character), "inside: \(character)")
            // At the end, `=` is padding too.
            let atEnd = "ab\(character)"
            let acceptedAtEnd = try self.extract([("Authorization", "Bearer " + atEnd)]) == .bearer(Substring(atEnd))
            #expect(acceptedAtEnd == (token68.contains(character) || character == "="), "at the end: \(character)")
        }
        // A long token: the check covers every byte, not a prefix.
        let long = String(repeating: "abcXYZ019-_.", count: 100)
        #expect(try self.extract([("Authorization", "Bearer " + long)]) == .bearer(Substring(long)))
        guard case .malformedBearer = try self.extract([("Authorization", "Bearer " + long + "!" + long)]) else {
            Issue.record("accepted a token with ! in the middle")
            return
        }
    }

    @Test("other schemes are not bearer credentials")
    func otherSchemes() throws {
        #expect(try self.extract([("Authorization", "Basic dXNlcjpwYXNz")]) == .none)
        #expect(try self.extract([("Authorization", "Bearerx a.b.c")]) == .none)
        #expect(try self.extract([("Authorization", "Token a.b.c")]) == .none)
    }

    @Test("malformed bearer values are rejected without parsing the token")
    func malformed() throws {
        for value in ["Bearer", "Bearer ", "Bearer a b", "Bearer a,b", "Bearer a=b", "Bearer =a", "Bearer \"a.b.c\"", "Bearer a.b.c;", "Bearer é"] {
            guard case .malformedBearer = try self.extract([("Authorization", value)]) else {
                Issue.record("accepted \(value)")
                continue
            }
        }
        let huge = "Bearer " + String(repeating: "a", count: 16 * 1024)
        #expect(try self.extract([("Authorization", huge)]) == .malformedBearer("The bearer token is too large."))
    }

    @Test("two Authorization headers are a 400")
    func twoHeaders() {
        #expect(throws: GatewayError.self) {
            try self.extract([("Authorization", "Bearer a.b.c"), ("Authorization", "Bearer d.e.f")])
        }
    }

    @Test("X-User-Id is ignored in prod")
    func userIDIgnoredInProd() throws {
        #expect(try self.extract([("X-User-Id", "alice")], dev: false) == .none)
    }

    @Test("X-User-Id is read in dev, but a bearer token wins")
    func userIDInDev() throws {
        #expect(try self.extract([("X-User-Id", "alice")], dev: true) == .devUserID("alice"))
        #expect(try self.extract([("X-User-Id", "alice"), ("Authorization", "Bearer a.b.c")], dev: true) == .bearer("a.b.c"))
    }

    @Test("X-User-Id outside the safe set is a 400", arguments: ["", "a b", "<script>", "ü", String(repeating: "a", count: 129), "a/b"])
    func badUserID(_ value: String) {
        #expect(throws: GatewayError.self) { try self.extract([("X-User-Id", value)], dev: true) }
    }

    @Test("X-User-Id edge lengths are accepted")
    func userIDLengths() throws {
        #expect(try self.extract([("X-User-Id", "a")], dev: true) == .devUserID("a"))
        let longest = String(repeating: "z", count: 128)
        #expect(try self.extract([("X-User-Id", longest)], dev: true) == .devUserID(longest))
    }
}
