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
    /// The session check applied to identities from verified tokens (`REVOCATION_CHECK=on`; nil: off).
    public let revocation: GatewayRevocation?

    public init(
        tokens: IDTokenAuthenticator, trustUserIDHeader: Bool, failureLimiter: AuthFailureLimiter? = nil,
        assertions: IdentityAssertionVerifier? = nil, revocation: GatewayRevocation? = nil
    ) {
        self.tokens = tokens
        self.trustUserIDHeader = trustUserIDHeader
        self.failureLimiter = failureLimiter
        self.assertions = assertions
        self.revocation = revocation
    }

    /// How far `identifyNow` got without suspending.
    public enum Outcome: Sendable {
        /// Decided: the caller, or nil for a request without credentials.
        case identified(Identity?)
        /// A token signed with a key this gateway does not hold yet: the async `identify` refetches the certificates.
        case needsKeyRefetch(token: Substring)
    }

    /// The caller's identity, or nil when the request carries no credentials.
    /// - Parameter clientAddress: the caller's address, computed only when the failure limiter needs it.
    public func identify(_ headers: HTTPFields, clientAddress: () -> String) async throws(GatewayError) -> Identity? {
        switch try self.identifyNow(headers, clientAddress: clientAddress) {
        case .identified(let identity):
            return identity
        case .needsKeyRefetch(let token):
            return try await self.identify(refetchingKeysFor: token, clientAddress: clientAddress)
        }
    }

    /// The rest of `identify` for a token that `identifyNow` left for a certificate refetch (it has already applied
    /// the failure limiter's refusal).
    public func identify(refetchingKeysFor token: Substring, clientAddress: () -> String) async throws(GatewayError) -> Identity {
        do {
            let verified = try await self.tokens.verifyUncached(token)
            return Identity(uid: verified.uid, source: .firebase, token: verified)
        } catch {
            let failure = GatewayError(error)
            if let limiter = self.failureLimiter, failure.status == .unauthorized { limiter.recordFailure(clientAddress()) }
            throw failure
        }
    }

    /// `identify` without suspending, on the connection's event loop: everything but a certificate refetch, which it
    /// leaves to the async `identify` (having recorded nothing, so that one starts afresh).
    /// - Parameter authorization: the `Authorization` value when it is kept apart from `headers` (as the request
    ///   head reader, `RawRequestHead`, keeps it).
    public func identifyNow(
        _ headers: HTTPFields, authorization: String? = nil, clientAddress: () -> String
    ) throws(GatewayError) -> Outcome {
        let credentials: Credentials
        do {
            credentials = try Credentials.extract(
                from: headers, authorization: authorization, trustUserIDHeader: self.trustUserIDHeader, assertionHeader: self.assertions?.header,
                checkingToken68: false
            )
        } catch {
            throw self.failure(error, clientAddress: clientAddress)
        }
        switch credentials {
        case .none:
            return .identified(nil)
        case .malformedBearer(let reason):
            throw self.malformed(reason, clientAddress: clientAddress)
        case .devUserID(let uid):
            return .identified(Identity(uid: uid, source: .dev, token: nil))
        case .assertion(let value):
            // `.assertion` is only extracted when a verifier is configured.
            guard let assertions = self.assertions else { return .identified(nil) }
            do {
                return .identified(try assertions.identity(value, now: WallClock.now()))
            } catch {
                throw self.failure(error, clientAddress: clientAddress)
            }
        case .bearer(let token):
            if let cached = self.tokens.cached(token) {
                return .identified(Identity(uid: cached.uid, source: .firebase, token: cached))
            }
            // Not a token the cache holds. Its characters (`extract` left them) are checked only once it has
            // failed, with the answer it would have had if checked first: a token that decodes is base64url and
            // dots, all token68, and one that is not token68 fails to decode, before any key is looked up.
            guard let limiter = self.failureLimiter else {
                do {
                    return try Self.outcome(token) { () throws(TokenVerificationError) in try self.tokens.verifyUncachedNow(token) }
                } catch {
                    throw Credentials.isToken68(token) ? error : self.malformed(Credentials.notToken68, clientAddress: clientAddress)
                }
            }
            // An address with no failures left gets its 429 whatever the token (`failure` answers a malformed one so).
            let address = clientAddress()
            try limiter.refuseIfExhausted(address)
            do {
                return try Self.outcome(token) { () throws(TokenVerificationError) in try self.tokens.verifyUncachedNow(token) }
            } catch {
                guard Credentials.isToken68(token) else { throw self.malformed(Credentials.notToken68, clientAddress: clientAddress) }
                if error.status == .unauthorized { limiter.recordFailure(address) }
                throw error
            }
        }
    }

    /// The caller's identity; no credentials is a 401.
    public func authenticate(_ headers: HTTPFields, clientAddress: () -> String) async throws(GatewayError) -> Identity {
        guard let identity = try await self.identify(headers, clientAddress: clientAddress) else {
            throw self.missingCredentials(authorization: headers[.authorization], clientAddress: clientAddress)
        }
        return identity
    }

    /// `authenticate` without suspending (see `identifyNow`).
    public func authenticateNow(
        _ headers: HTTPFields, authorization: String? = nil, clientAddress: () -> String
    ) throws(GatewayError) -> Outcome {
        let outcome = try self.identifyNow(headers, authorization: authorization, clientAddress: clientAddress)
        if case .identified(nil) = outcome {
            throw self.missingCredentials(authorization: authorization ?? headers[.authorization], clientAddress: clientAddress)
        }
        return outcome
    }

    /// A bearer value that is not a token (401 `invalid_token`, reason `malformed`).
    private func malformed(_ message: String, clientAddress: () -> String) -> GatewayError {
        self.failure(.invalidToken(message, reason: TokenVerificationError.Reason.malformed.rawValue), clientAddress: clientAddress)
    }

    /// No identity: no credentials at all, or (with an `Authorization` value that gave none) another scheme.
    private func missingCredentials(authorization: String?, clientAddress: () -> String) -> GatewayError {
        let error: GatewayError =
            authorization == nil ? .missingCredentials(devMode: self.trustUserIDHeader) : .unsupportedScheme(devMode: self.trustUserIDHeader)
        return self.failure(error, clientAddress: clientAddress)
    }

    /// A verification's result as an outcome: an unknown key asks for the refetch instead of failing.
    private static func outcome(
        _ token: Substring, _ verify: () throws(TokenVerificationError) -> VerifiedToken
    ) throws(GatewayError) -> Outcome {
        do {
            let verified = try verify()
            return .identified(Identity(uid: verified.uid, source: .firebase, token: verified))
        } catch where error.reason == .unknownKey {
            return .needsKeyRefetch(token: token)
        } catch {
            throw GatewayError(error)
        }
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
}
