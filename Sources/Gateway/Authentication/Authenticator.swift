public import HTTPTypes
public import IDTokens

/// Decides who a request comes from: a verified Firebase ID token, or in dev mode the `X-User-Id` header.
/// Fails closed: anything it cannot verify is an error, never an anonymous pass.
public struct Authenticator: Sendable {
    public let tokens: IDTokenAuthenticator
    /// Dev mode: `X-User-Id` is accepted when no `Authorization` header is present.
    public let trustUserIDHeader: Bool

    public init(tokens: IDTokenAuthenticator, trustUserIDHeader: Bool) {
        self.tokens = tokens
        self.trustUserIDHeader = trustUserIDHeader
    }

    /// The caller's identity, or nil when the request carries no credentials.
    public func identify(_ headers: HTTPFields) async throws(GatewayError) -> Identity? {
        switch try Credentials.extract(from: headers, trustUserIDHeader: self.trustUserIDHeader) {
        case .none:
            return nil
        case .malformedBearer(let reason):
            throw .invalidToken(reason, reason: TokenVerificationError.Reason.malformed.rawValue)
        case .devUserID(let uid):
            return Identity(uid: uid, source: .dev, token: nil)
        case .bearer(let token):
            do {
                let verified = try await self.tokens.verify(token)
                return Identity(uid: verified.uid, source: .firebase, token: verified)
            } catch {
                throw GatewayError(error)
            }
        }
    }

    /// The caller's identity; no credentials is a 401.
    public func authenticate(_ headers: HTTPFields) async throws(GatewayError) -> Identity {
        guard let identity = try await self.identify(headers) else {
            throw .missingCredentials(devMode: self.trustUserIDHeader)
        }
        return identity
    }
}
