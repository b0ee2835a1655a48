import Foundation
public import IDTokens

/// A Google service account, read from its JSON key file (what `GOOGLE_APPLICATION_CREDENTIALS` names).
///
/// The private key is parsed at once and kept only as an OpenSSL key; ``description`` and every error leave it out.
public struct ServiceAccount: Sendable, CustomStringConvertible {
    /// `project_id`.
    public let projectID: String
    /// `client_email`: the assertion's `iss`.
    public let clientEmail: String
    /// `private_key_id`: the assertion header's `kid`.
    public let privateKeyID: String
    /// `token_uri`: where access tokens come from, and the assertion's `aud`.
    public let tokenURI: String
    /// The signing key from `private_key`.
    let privateKey: RSAPrivateKey

    /// A service account from its parts (tests build one around a generated key).
    public init(projectID: String, clientEmail: String, privateKeyID: String, tokenURI: String, privateKey: RSAPrivateKey) throws(GoogleAuthError) {
        guard GoogleEndpointURL.isAllowed(tokenURI) else {
            throw .credentialsInvalid("token_uri must be an https URL (plain http only to a loopback host), without user info")
        }
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.tokenURI = tokenURI
        self.privateKey = privateKey
    }

    /// The fields of a service-account key file.
    private struct File: Decodable {
        var type: String?
        var project_id: String?
        var private_key_id: String?
        var private_key: String?
        var client_email: String?
        var token_uri: String?
    }

    /// Parses a service-account key file's bytes: `type` must be `service_account`; `project_id`, `private_key_id`,
    /// `private_key` (an RSA key in PEM), `client_email` and `token_uri` non-empty strings.
    public init(json: [UInt8]) throws(GoogleAuthError) {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: Data(json))
        } catch {
            throw .credentialsInvalid("it is not a JSON object with string fields")
        }
        guard file.type == "service_account" else { throw .credentialsInvalid("\"type\" is not \"service_account\"") }
        func required(_ value: String?, _ name: String) throws(GoogleAuthError) -> String {
            guard let value, !value.isEmpty else { throw .credentialsInvalid("\"\(name)\" is missing or empty") }
            return value
        }
        let pem = try required(file.private_key, "private_key")
        let key: RSAPrivateKey
        do {
            key = try RSAPrivateKey(pem: pem)
        } catch {
            throw .credentialsInvalid("\"private_key\" is not an RSA private key in PEM form")
        }
        try self.init(
            projectID: try required(file.project_id, "project_id"),
            clientEmail: try required(file.client_email, "client_email"),
            privateKeyID: try required(file.private_key_id, "private_key_id"),
            tokenURI: try required(file.token_uri, "token_uri"),
            privateKey: key
        )
    }

    /// Reads and parses the key file at `path`.
    public init(contentsOfFile path: String) throws(GoogleAuthError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .credentialsUnreadable("cannot read \(path)")
        }
        do {
            try self.init(json: Array(data))
        } catch {
            throw .credentialsInvalid("\(path): \(error.detail)")
        }
    }

    /// The account without its key: `client_email` and `project_id`.
    public var description: String {
        "ServiceAccount(\(self.clientEmail), project \(self.projectID))"
    }
}
