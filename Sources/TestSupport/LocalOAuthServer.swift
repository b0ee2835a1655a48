import Foundation
public import IDTokens
import Synchronization

/// A local OAuth 2.0 token endpoint for the JWT bearer grant (RFC 7523), standing in for Google's `token_uri`.
///
/// It answers `POST /token` only, with a form body `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=…`
/// whose assertion is RS256-signed by ``TestServiceAccount/key``, with header `kid` = ``TestServiceAccount/keyID``
/// and claims `iss` = ``TestServiceAccount/clientEmail``, `scope` = cloud-platform, `aud` = this server's token URL,
/// `iat` and `exp` numbers with `0 < exp - iat <= 3600`. Anything else gets 400 `invalid_grant` and is recorded in
/// ``rejections``. A good assertion gets a fresh token `test-access-<n>` and ``expiresIn``.
public final class LocalOAuthServer: LocalTestServer {
    private struct State {
        var issued: [String] = []
        var rejections: [String] = []
        var failWithStatus: Int?
        var expiresIn = 3599
    }

    private let server: LocalHTTPServer
    private let state = Mutex(State())

    private init(server: LocalHTTPServer) {
        self.server = server
    }

    /// Starts the endpoint on 127.0.0.1 and a free port.
    public static func start() async throws -> LocalOAuthServer {
        let box = StateBox()
        let server = try await LocalHTTPServer.start { request in
            guard let owner = box.owner else { return .text("starting", status: 503) }
            return owner.answer(request)
        }
        let oauth = LocalOAuthServer(server: server)
        box.owner = oauth
        return oauth
    }

    /// `http://127.0.0.1:<port>/token`.
    public var tokenURI: String { self.server.baseURL + "/token" }

    /// Requests received (good or not).
    public var requestCount: Int { self.server.requestCount }

    /// The tokens issued so far, in order.
    public var issuedTokens: [String] { self.state.withLock { $0.issued } }

    /// Why requests were refused, in order.
    public var rejections: [String] { self.state.withLock { $0.rejections } }

    /// Whether `token` is one this server issued.
    public func issued(_ token: String) -> Bool { self.state.withLock { $0.issued.contains(token) } }

    /// From now on, answer every request with `status` (nil: serve tokens again).
    public func failWith(status: Int?) { self.state.withLock { $0.failWithStatus = status } }

    /// The `expires_in` of tokens issued from now on. Default 3599.
    public func setExpiresIn(_ seconds: Int) { self.state.withLock { $0.expiresIn = seconds } }

    public func shutdown() async { await self.server.shutdown() }

    private func answer(_ request: LocalRequest) -> LocalResponse {
        if let status = self.state.withLock({ $0.failWithStatus }) {
            return .json("{\"error\":\"internal_failure\"}", status: status)
        }
        if let reason = self.rejection(request) {
            self.state.withLock { $0.rejections.append(reason) }
            return .json("{\"error\":\"invalid_grant\",\"error_description\":\(TokenFactory.quoted(reason))}", status: 400)
        }
        let (token, expiresIn) = self.state.withLock { state in
            let token = "test-access-\(state.issued.count + 1)"
            state.issued.append(token)
            return (token, state.expiresIn)
        }
        return .json("{\"access_token\":\"\(token)\",\"expires_in\":\(expiresIn),\"token_type\":\"Bearer\"}")
    }

    private func rejection(_ request: LocalRequest) -> String? {
        guard request.method == "POST", request.path == "/token" else { return "not POST /token" }
        guard request.header("Content-Type") == "application/x-www-form-urlencoded" else { return "content type" }
        var fields: [String: String] = [:]
        for pair in request.bodyText.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { return "malformed form" }
            fields[String(parts[0])] = String(parts[1]).replacingOccurrences(of: "%3A", with: ":")
        }
        guard fields.count == 2 else { return "form fields" }
        guard fields["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else { return "grant_type" }
        guard let assertion = fields["assertion"], let token = try? DecodedToken(compact: assertion) else { return "assertion not a JWT" }
        guard token.headerParameter("alg") == .string("RS256") else { return "alg" }
        guard token.headerParameter("typ") == .string("JWT") else { return "typ" }
        guard token.headerParameter("kid") == .string(TestServiceAccount.keyID) else { return "kid" }
        guard TestServiceAccount.publicKey.verifyRS256(signature: token.signature, signedBytes: token.signingInput) else { return "signature" }
        guard token.claim("iss") == .string(TestServiceAccount.clientEmail) else { return "iss" }
        guard token.claim("scope") == .string("https://www.googleapis.com/auth/cloud-platform") else { return "scope" }
        guard token.claim("aud") == .string(self.tokenURI) else { return "aud" }
        guard case .number(let iat) = token.claim("iat"), case .number(let exp) = token.claim("exp") else { return "iat/exp" }
        guard exp > iat, exp - iat <= 3600 else { return "lifetime" }
        return nil
    }

    /// Lets the handler reach the server object made after it.
    private final class StateBox: Sendable {
        private let lock = Mutex<LocalOAuthServer?>(nil)
        var owner: LocalOAuthServer? {
            get { self.lock.withLock { $0 } }
            set { self.lock.withLock { $0 = newValue } }
        }
    }
}

/// The service account the local Google stand-ins trust: a key made once per test process.
public enum TestServiceAccount {
    public static let keyID = "test-service-account-key"
    public static let clientEmail = "storygate-test@storygate-test.iam.gserviceaccount.com"
    public static let projectID = TestKeys.projectID
    public static let key: RSAPrivateKey = .generate(bits: 2048)
    public static let publicKey: RSAPublicKey = {
        do {
            return try key.publicKey()
        } catch {
            fatalError("service account key unusable: \(error)")
        }
    }()

    /// A service-account key file for `tokenURI`, as Google's console writes one.
    public static func json(tokenURI: String, type: String = "service_account") -> String {
        """
        {
          "type": \(TokenFactory.quoted(type)),
          "project_id": \(TokenFactory.quoted(projectID)),
          "private_key_id": \(TokenFactory.quoted(keyID)),
          "private_key": \(TokenFactory.quoted(key.pem)),
          "client_email": \(TokenFactory.quoted(clientEmail)),
          "client_id": "100000000000000000000",
          "auth_uri": "https://accounts.google.com/o/oauth2/auth",
          "token_uri": \(TokenFactory.quoted(tokenURI))
        }
        """
    }
}
