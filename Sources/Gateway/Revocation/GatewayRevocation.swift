public import CurlHTTP
public import GatewayConfig
public import GoogleAuth
public import IDTokens
public import Logging
public import RateLimiting
public import Revocation

/// The revocation check as the gateway runs it: the checker, the rule for which identities it applies to, and the
/// verdicts as gateway errors. Built from the configuration by ``make(configuration:curl:metrics:logger:now:)``.
public struct GatewayRevocation: Sendable {
    public let checker: RevocationChecker
    /// The Firebase project whose users are looked up; tokens of other projects (the dev project) are not checked.
    public let projectID: String
    /// The Redis connection sharing states and drops with the other replicas (with `REDIS_URL`): a service to run.
    public let sharing: RedisMessaging?

    public init(checker: RevocationChecker, projectID: String, sharing: RedisMessaging? = nil) {
        self.checker = checker
        self.projectID = projectID
        self.sharing = sharing
    }

    /// What ``decideNow(_:now:)`` concluded.
    public enum Outcome: Sendable, Equatable {
        /// The request may go on.
        case pass
        /// The user's state must be looked up first: ``decide(_:)`` does it.
        case needsLookup
    }

    /// The verdict for `identity` without suspending when its user's state is cached; a refusal is thrown.
    public func decideNow(_ identity: Identity, now: Double) throws(GatewayError) -> Outcome {
        guard let token = self.checkedToken(identity) else { return .pass }
        switch self.checker.stateNow(uid: token.uid, issuedAt: token.issuedAt, now: now) {
        case .needsLookup:
            return .needsLookup
        case .decided(let verdict, _):
            if let error = GatewayError.revocation(verdict) { throw error }
            return .pass
        }
    }

    /// The verdict for `identity`, looking its user up when needed (one lookup per user in flight).
    public func decide(_ identity: Identity) async throws(GatewayError) {
        guard let token = self.checkedToken(identity) else { return }
        let verdict = await self.checker.check(uid: token.uid, issuedAt: token.issuedAt)
        if let error = GatewayError.revocation(verdict) { throw error }
    }

    /// Only verified Firebase ID tokens of the configured project have a session Google can revoke.
    private func checkedToken(_ identity: Identity) -> VerifiedToken? {
        guard identity.source == .firebase, let token = identity.token, token.projectID == self.projectID else { return nil }
        return token
    }

    /// The admin route dropping the cached states of the users it names.
    public func adminRoute(token: Secret) -> Route {
        let checker = self.checker
        return RevocationAdminRoute.route(token: token) { uids in try await checker.dropEverywhere(uids: uids) }
    }

    /// `redis://[cred@]host1:port` from a cluster URL `redis://[cred@]host1:port,host2:port`.
    static func firstNode(_ url: String) -> String {
        guard let comma = url.firstIndex(of: ",") else { return url }
        return String(url[..<comma])
    }

    /// The service account of `GOOGLE_APPLICATION_CREDENTIALS` as an access-token source on `curl`; nil when unset, or
    /// when unusable and nothing that needs it is on (a warning then: the variable is often set for other tools).
    public static func tokenSource(configuration: GatewayConfiguration, curl: CurlClient, logger: Logger) throws(ConfigurationError) -> ServiceAccountTokenSource? {
        guard let path = configuration.googleCredentialsFile else { return nil }
        do {
            return ServiceAccountTokenSource(account: try ServiceAccount(contentsOfFile: path), client: curl, logger: logger)
        } catch {
            guard configuration.googleCredentialsUser != nil else {
                logger.warning(
                    "GOOGLE_APPLICATION_CREDENTIALS names an unusable service-account file; nothing that needs one is on",
                    metadata: ["error": "\(error.detail)"]
                )
                return nil
            }
            throw ConfigurationError(variable: "GOOGLE_APPLICATION_CREDENTIALS", message: "names an unusable service-account file: \(error.detail)")
        }
    }

    /// The check for `configuration`, looking users up at `IDENTITY_TOOLKIT_URL` with `tokens`; nil when
    /// `REVOCATION_CHECK` is off.
    public static func make(
        configuration: GatewayConfiguration, tokens: (any AccessTokenSource)?, curl: CurlClient, metrics: GatewayMetrics, logger: Logger,
        now: @escaping @Sendable () -> Double = WallClock.now
    ) throws(ConfigurationError) -> GatewayRevocation? {
        guard configuration.revocation.check == .on else { return nil }
        guard let tokens else {
            throw ConfigurationError(variable: "GOOGLE_APPLICATION_CREDENTIALS", message: "is required when REVOCATION_CHECK=on")
        }
        guard let projectID = configuration.firebaseProjectID else {
            throw ConfigurationError(variable: "FIREBASE_PROJECT_ID", message: "is required when REVOCATION_CHECK=on: its users are the ones looked up")
        }
        let settings = configuration.revocation.settings
        let lookup = IdentityToolkitLookup(baseURL: configuration.revocation.identityToolkitURL, projectID: projectID, client: curl, tokens: tokens)
        // States and drops go through the rate limits' Redis; with Redis Cluster, through its first seed node
        // (plain keys and a published channel need no slot routing on one node).
        var sharing: RedisMessaging?
        var shared: RedisRevocationStates?
        if let url = configuration.redisURL {
            let single = configuration.redisCluster ? Self.firstNode(url) : url
            do {
                let redis = try RedisMessaging(url: single, channel: RedisRevocationStates.channel, logger: logger)
                sharing = redis
                shared = RedisRevocationStates(redis: redis, maxAge: settings.maxAge, logger: logger, now: now)
            } catch {
                throw ConfigurationError(variable: "REDIS_URL", message: "cannot be used for revocation states: \(error.shortDescription)")
            }
        }
        let checker = RevocationChecker(
            settings: settings, lookup: lookup, shared: shared, metrics: RevocationMetrics(factory: metrics.factory, policy: settings.failurePolicy),
            logger: logger, now: now
        )
        shared?.deliverDrops(to: checker)
        return GatewayRevocation(checker: checker, projectID: projectID, sharing: sharing)
    }
}
