import Foundation

/// The token endpoint's JSON answer (RFC 6749 §5.1): `access_token`, `token_type` `Bearer`, `expires_in` seconds.
struct TokenEndpointResponse: Sendable {
    var accessToken: String
    var expiresIn: Double

    private struct Body: Decodable {
        var access_token: String?
        var token_type: String?
        var expires_in: Double?
    }

    init(body: [UInt8]) throws(GoogleAuthError) {
        guard let decoded = try? JSONDecoder().decode(Body.self, from: Data(body)) else {
            throw .invalidTokenResponse("the answer is not a JSON object with the token fields")
        }
        guard let token = decoded.access_token, !token.isEmpty, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalidTokenResponse("\"access_token\" is missing or not visible ASCII")
        }
        guard decoded.token_type?.lowercased() == "bearer" else { throw .invalidTokenResponse("\"token_type\" is not Bearer") }
        guard let expiresIn = decoded.expires_in, expiresIn.isFinite, expiresIn > 0 else {
            throw .invalidTokenResponse("\"expires_in\" is missing or not positive")
        }
        self.accessToken = token
        self.expiresIn = min(expiresIn, 24 * 3600)
    }
}
