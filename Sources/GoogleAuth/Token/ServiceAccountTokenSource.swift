public import CurlHTTP
public import IDTokens
public import Logging

/// Access tokens for a service account by the OAuth 2.0 JWT bearer grant (RFC 7523) at its `token_uri`, over
/// ``CurlClient``: cached until shortly before they expire, then refreshed in the background while the still-valid
/// token is handed out; one fetch however many callers want a token; backoff after a failure
/// (``AccessTokenRefreshState``).
public actor ServiceAccountTokenSource: AccessTokenSource {
    private let account: ServiceAccount
    private let client: CurlClient
    private let logger: Logger
    private let now: @Sendable () -> Double
    private let timeout: Duration
    private var state = AccessTokenRefreshState()
    private var inFlight: Task<String, any Error>?

    /// A source for `account`, fetching through `client`; `now` (seconds since the epoch) is injectable for tests.
    public init(
        account: ServiceAccount, client: CurlClient, logger: Logger, timeout: Duration = .seconds(10),
        now: @escaping @Sendable () -> Double = WallClock.now
    ) {
        self.account = account
        self.client = client
        self.logger = logger
        self.timeout = timeout
        self.now = now
    }

    /// A valid access token: the cached one, or one fetch's result shared by every caller waiting for it.
    ///
    /// - Throws: ``GoogleAuthError`` when no valid token can be had (endpoint unreachable or refusing, a bad
    ///   answer, or backing off after such a failure).
    public func accessToken() async throws -> String {
        switch self.state.decide(now: self.now()) {
        case .use(let token):
            return token
        case .fail(let error):
            throw error
        case .fetch:
            let task = self.inFlight ?? Task { try await self.refresh() }
            self.inFlight = task
            // Due for a refresh but still valid: no caller waits for the new one.
            if let valid = self.state.validToken(now: self.now()) { return valid }
            return try await task.value
        }
    }

    private func refresh() async throws -> String {
        defer { self.inFlight = nil }
        let startedAt = self.now()
        do {
            let response = try await Self.fetch(account: self.account, client: self.client, timeout: self.timeout, now: startedAt)
            self.state.succeeded(value: response.accessToken, expiresIn: response.expiresIn, fetchedAt: startedAt)
            self.logger.debug("access token fetched", metadata: ["client_email": "\(self.account.clientEmail)", "expires_in": "\(response.expiresIn)"])
            return response.accessToken
        } catch {
            let failedAt = self.now()
            self.state.failed(error, now: failedAt)
            self.logger.warning(
                "access token fetch failed",
                metadata: [
                    "client_email": "\(self.account.clientEmail)", "error": "\(error)",
                    "consecutive_failures": "\(self.state.consecutiveFailures)",
                ]
            )
            if let still = self.state.validToken(now: failedAt) { return still }
            throw error
        }
    }

    private static func fetch(account: ServiceAccount, client: CurlClient, timeout: Duration, now: Double) async throws(GoogleAuthError) -> TokenEndpointResponse {
        let assertion = JWTBearerAssertion(account: account, now: now)
        let request = CurlRequest(
            url: account.tokenURI, method: "POST",
            headers: [CurlHeader("Content-Type", "application/x-www-form-urlencoded"), CurlHeader("Accept", "application/json")],
            body: Array(assertion.formBody.utf8), timeout: timeout, maxResponseBytes: 64 * 1024
        )
        let response: CurlResponse
        do {
            response = try await client.execute(request)
        } catch let error as CurlError {
            throw .endpointUnreachable(error.shortDescription)
        } catch {
            throw .endpointUnreachable("other")
        }
        guard response.status == 200 else { throw .endpointRefused("status \(response.status)") }
        return try TokenEndpointResponse(body: response.body)
    }
}
