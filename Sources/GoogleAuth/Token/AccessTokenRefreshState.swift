/// The cache, refresh and backoff rules of ``ServiceAccountTokenSource``, apart from any I/O: what to do at `now`,
/// and what a fetch's outcome changes.
///
/// A token is used until `refreshMargin` before it expires; then one fetch replaces it (the old one is still handed
/// out if that fetch fails while it is valid). After a failure no fetch is made before a backoff that doubles from
/// `initialBackoff` to `maximumBackoff`; calls in between fail at once with the last error.
struct AccessTokenRefreshState: Sendable {
    struct Token: Sendable, Equatable {
        var value: String
        var expiresAt: Double
        var refreshAt: Double
    }

    enum Decision: Sendable, Equatable {
        /// Hand out this token.
        case use(String)
        /// Fetch a new one.
        case fetch
        /// Fail without fetching.
        case fail(GoogleAuthError)
    }

    /// How long before expiry a token is replaced (at most half its lifetime).
    var refreshMargin: Double = 300
    var initialBackoff: Double = 1
    var maximumBackoff: Double = 60

    private(set) var token: Token?
    private(set) var consecutiveFailures = 0
    private(set) var retryAt: Double = 0
    private var lastError: GoogleAuthError?

    func decide(now: Double) -> Decision {
        if let token, now < token.refreshAt { return .use(token.value) }
        if now < self.retryAt {
            if let token = self.validToken(now: now) { return .use(token) }
            return .fail(self.lastError ?? .backingOff)
        }
        return .fetch
    }

    /// The cached token if it has not expired, even when it is due for a refresh.
    func validToken(now: Double) -> String? {
        guard let token, now < token.expiresAt else { return nil }
        return token.value
    }

    /// A fetch started at `fetchedAt` returned `value`, valid for `expiresIn` seconds from then.
    mutating func succeeded(value: String, expiresIn: Double, fetchedAt: Double) {
        let margin = min(self.refreshMargin, expiresIn / 2)
        self.token = Token(value: value, expiresAt: fetchedAt + expiresIn, refreshAt: fetchedAt + expiresIn - margin)
        self.consecutiveFailures = 0
        self.retryAt = 0
        self.lastError = nil
    }

    /// A fetch failed at `now`: the next one waits out the backoff.
    mutating func failed(_ error: GoogleAuthError, now: Double) {
        self.consecutiveFailures += 1
        let exponent = min(self.consecutiveFailures - 1, 30)
        let backoff = min(self.initialBackoff * Double(1 << exponent), self.maximumBackoff)
        self.retryAt = now + backoff
        self.lastError = error
    }
}
