import Foundation
import GoogleAuth
import IDTokens
import TestSupport
import Testing

@Suite struct ServiceAccountTests {
    @Test func readsAKeyFileAndNeverShowsTheKey() throws {
        let account = try ServiceAccount(json: Array(TestServiceAccount.json(tokenURI: "https://oauth2.googleapis.com/token").utf8))
        #expect(account.projectID == TestServiceAccount.projectID)
        #expect(account.clientEmail == TestServiceAccount.clientEmail)
        #expect(account.privateKeyID == TestServiceAccount.keyID)
        #expect(account.tokenURI == "https://oauth2.googleapis.com/token")
        #expect(!"\(account)".contains("PRIVATE KEY"))
        #expect(!String(reflecting: account).contains("BEGIN"))
    }

    @Test(arguments: [
        "{",
        "[]",
        #"{"type":"authorized_user"}"#,
        #"{"type":"service_account","project_id":"p","private_key_id":"k","private_key":"not a key","client_email":"e","token_uri":"https://x/t"}"#,
        #"{"type":"service_account","project_id":"","private_key_id":"k","private_key":"x","client_email":"e","token_uri":"https://x/t"}"#,
    ])
    func refusesBadFiles(json: String) {
        #expect(throws: GoogleAuthError.credentialsInvalid) { try ServiceAccount(json: Array(json.utf8)) }
    }

    @Test func refusesATokenURIOverPlainHTTPToAnotherHost() {
        let error = #expect(throws: GoogleAuthError.credentialsInvalid) {
            try ServiceAccount(json: Array(TestServiceAccount.json(tokenURI: "http://oauth2.googleapis.com/token").utf8))
        }
        #expect(error?.detail.contains("token_uri") == true)
        #expect(error?.detail.contains("PRIVATE") == false)
    }

    @Test func aMissingFileIsUnreadable() {
        #expect(throws: GoogleAuthError.credentialsUnreadable) { try ServiceAccount(contentsOfFile: "/nonexistent/storygate/sa.json") }
    }

    @Test(arguments: [
        ("https://oauth2.googleapis.com/token", true),
        ("http://127.0.0.1:8080/token", true),
        ("http://localhost/token", true),
        ("http://[::1]:9/x", true),
        ("http://example.com/token", false),
        ("http://127.0.0.1@example.com/token", false),
        ("https://user@example.com/token", false),
        ("ftp://127.0.0.1/token", false),
        ("http://127.0.0.1:0/token", false),
        ("http://128.0.0.1/token", false),
        ("https://", false),
    ])
    func endpointURLRule(url: String, allowed: Bool) {
        #expect(GoogleEndpointURL.isAllowed(url) == allowed)
    }
}

@Suite struct JWTBearerAssertionTests {
    /// Decoded: header `{"alg":"RS256","typ":"JWT","kid":"test-service-account-key"}`, claims `{"iss":
    /// "storygate-test@…", "scope": "https://www.googleapis.com/auth/cloud-platform", "aud":
    /// "https://oauth2.googleapis.com/token", "iat": 1800000000, "exp": 1800003600}`.
    @Test func hasTheClaimsGoogleRequiresAndVerifies() throws {
        let account = try testAccount(tokenURI: "https://oauth2.googleapis.com/token")
        let assertion = JWTBearerAssertion(account: account, now: 1_800_000_000.7, lifetime: 7200)
        let token = try DecodedToken(compact: assertion.compact)
        #expect(token.headerParameter("alg") == .string("RS256"))
        #expect(token.headerParameter("typ") == .string("JWT"))
        #expect(token.headerParameter("kid") == .string(TestServiceAccount.keyID))
        #expect(token.claim("iss") == .string(TestServiceAccount.clientEmail))
        #expect(token.claim("scope") == .string("https://www.googleapis.com/auth/cloud-platform"))
        #expect(token.claim("aud") == .string("https://oauth2.googleapis.com/token"))
        #expect(token.claim("iat") == .number(1_800_000_000))
        #expect(token.claim("exp") == .number(1_800_003_600))
        #expect(TestServiceAccount.publicKey.verifyRS256(signature: token.signature, signedBytes: token.signingInput))
        #expect(!TestKeys.primaryPublicKey.verifyRS256(signature: token.signature, signedBytes: token.signingInput))
        #expect(assertion.formBody.hasPrefix("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=ey"))
    }
}
