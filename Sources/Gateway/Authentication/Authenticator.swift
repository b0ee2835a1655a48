public import HTTPTypes
public import IDTokens

/// Decides who a request comes from: a verified Firebase ID token, a signed identity assertion from another
/// gateway (when an assertion key is configured), or in dev mode the `X-User-Id` header.
/// Fails closed: anything it cannot verify is an error, never an anonymous pass.
public struct Authenticator: Sendable {
    public let tokens: IDTokenAuthenticator
    /// Dev mode: `X-User-Id` is accepted when no `Authorization` header is present.
    public let trustUserIDHeader: Bool
    /// Unauthenticated and failed-auth traffic per client address (nil: off).
    public let failureLimiter: AuthFailureLimiter?
    /// Identity assertions accepted from requests without an `Authorization` header (nil: none).
    public let assertions: IdentityAssertionVerifier?

    public init(
        tokens: IDTokenAuthenticator, trustUserIDHeader: Bool, failureLimiter: AuthFailureLimiter? = nil,
        assertions: IdentityAssertionVerifier? = nil
    ) {
        self.tokens = tokens
        self.trustUserIDHeader = trustUserIDHeader
        self.failureLimiter = failureLimiter
        self.assertions = assertions
    }

    /// The caller's identity, or nil when the request carries no credentials.
    /// - Parameter clientAddress: the caller's address, computed only when the failure limiter needs it.
    public func identify(_ headers: HTTPFields, clientAddress: () -> String) async throws(GatewayError) -> Identity? {
        let credentials: Credentials
        do {
            credentials = try Credentials.extract(
                from: headers, trustUserIDHeader: self.trustUserIDHeader, assertionHeader: self.assertions?.header
            )
        } catch {
            throw self.failure(error, clientAddress: clientAddress)
        }
        switch credentials {
        case .none:
            return nil
        case .malformedBearer(let reason):
            throw self.failure(
                .invalidToken(reason, reason: TokenVerificationError.Reason.malformed.rawValue), clientAddress: clientAddress
            )
        case .devUserID(let uid):
            return Identity(uid: uid, source: .dev, token: nil)
        case .assertion(let value):
            // `.assertion` is only extracted when a verifier is configured.
            guard let assertions = self.assertions else { return nil }
            do {
                return try assertions.identity(value, now: WallClock.now())
            } catch {
                throw self.failure(error, clientAddress: clientAddress)
            }
        case .bearer(let token):
            guard let limiter = self.failureLimiter else {
                return try await self.verify(token)
            }
            if let cached = self.tokens.cached(token) {
                return Identity(uid: cached.uid, source: .firebase, token: cached)
            }
            let address = clientAddress()
            try limiter.refuseIfExhausted(address)
            do {
                return try await self.verify(token, cacheChecked: true)
            } catch {
                if error.status == .unauthorized { limiter.recordFailure(address) }
                throw error
            }
        }
    }

    /// The caller's identity; no credentials is a 401.
    public func authenticate(_ headers: HTTPFields, clientAddress: () -> String) async throws(GatewayError) -> Identity {
        guard let identity = try await self.identify(headers, clientAddress: clientAddress) else {
            throw self.failure(.missingCredentials(devMode: self.trustUserIDHeader), clientAddress: clientAddress)
        }
        return identity
    }

    /// A request that failed without any verification work: counts against its address, and is a 429 instead
    /// when the address has no failures left.
    private func failure(_ error: GatewayError, clientAddress: () -> String) -> GatewayError {
        guard let limiter = self.failureLimiter else { return error }
        let address = clientAddress()
        do {
            try limiter.refuseIfExhausted(address)
        } catch {
            return error
        }
        limiter.recordFailure(address)
        return error
    }

    private func verify(_ token: Substring, cacheChecked: Bool = false) async throws(GatewayError) -> Identity {
        do {
            let verified = cacheChecked ? try await self.tokens.verifyUncached(token) : try await self.tokens.verify(token)
            return Identity(uid: verified.uid, source: .firebase, token: verified)
        } catch {
            throw GatewayError(error)
        }
    }
}
