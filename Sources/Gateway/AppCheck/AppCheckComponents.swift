import CurlHTTP
import GatewayConfig
import IDTokens
import Logging

/// App Check's long-lived parts, made when App Check is on for any route: the JWKS (a `CertificateStore`, a
/// `Service`), the authenticator with its verified-token cache, and the request step the rule pipeline runs.
struct AppCheckComponents: Sendable {
    let keys: CertificateStore
    let authenticator: AppCheckAuthenticator
    let gate: AppCheckGate

    /// Ready once the JWKS is loaded.
    var isReady: Bool { self.authenticator.isReady }

    /// Nil when App Check is off on every route. Dev mode reads the dev JWKS from the dev folder; prod fetches
    /// `APP_CHECK_JWKS_URL` with libcurl.
    ///
    /// - Parameter accessToken: the Google service-account access token for consuming limited-use tokens; nil
    ///   leaves consuming routes without a consumer (counted as `consume_unavailable`, 503 with enforce).
    static func make(
        configuration: GatewayConfiguration, curl: CurlClient, metrics: GatewayMetrics, policy: CertificateRefreshPolicy,
        accessToken: (@Sendable () async throws -> String)?, logger: Logger
    ) -> AppCheckComponents? {
        guard configuration.appCheckIsOn, let projectNumber = configuration.appCheckProjectNumber,
              let projectID = configuration.appCheckProjectID
        else { return nil }
        let source: any CertificateSource =
            configuration.mode == .dev
            ? FileCertificateSource(path: configuration.devCertsDirectory + "/" + DevCertificates.appCheckJWKSFile)
            : CurlCertificateSource(url: configuration.appCheck.jwksURL, client: curl)
        let keys = CertificateStore(projectID: "app-check", source: source, format: .jwks, policy: policy, logger: logger)
        let rules = AppCheckClaimRules(
            projectNumber: projectNumber, projectID: projectID, appIDs: Set(configuration.appCheck.appIDs),
            clockSkew: Double(configuration.clockSkewSeconds)
        )
        let authenticator = AppCheckAuthenticator(rules: rules, keys: keys, cache: TokenCache(capacity: configuration.tokenCacheSize))
        let consumer = accessToken.map { AppCheckConsumer(apiURL: configuration.appCheck.apiURL, projectID: projectID, client: curl, accessToken: $0) }
        let gate = AppCheckGate(authenticator: authenticator, consumer: consumer, metrics: metrics.appCheck, logger: logger)
        return AppCheckComponents(keys: keys, authenticator: authenticator, gate: gate)
    }
}

/// A route's App Check step: the gate and the route's policy (a route with App Check off has none).
struct AppCheckStep: Sendable {
    let gate: AppCheckGate
    let policy: AppCheckGate.Policy
}
