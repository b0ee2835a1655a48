/// How a project's certificate set is kept fresh. Every duration is in seconds.
///
/// The defaults follow Envoy's jwt_authn async fetcher and Google's endpoint: Google serves its certificates
/// with `Cache-Control: max-age` of several hours and publishes a new key well before it signs with it.
public struct CertificateRefreshPolicy: Sendable, Equatable {
    /// The shortest lifetime taken from `max-age`, so a tiny or zero max-age cannot cause a fetch storm.
    public var minimumLifetime: Double = 60
    /// The longest lifetime taken from `max-age`.
    public var maximumLifetime: Double = 24 * 3600
    /// The lifetime when the response has no `Cache-Control` lifetime.
    public var defaultLifetime: Double = 3600
    /// Refresh in the background once this fraction of the lifetime has passed, ahead of expiry.
    public var refreshFraction: Double = 0.8
    /// After a failed fetch, retry after `initialBackoff`, doubling per failure up to `maximumBackoff`.
    public var initialBackoff: Double = 1
    public var maximumBackoff: Double = 60
    /// Keep serving an expired set this long while refreshes fail (stale-if-error, RFC 5861), then drop it.
    public var staleIfError: Double = 24 * 3600
    /// At most one fetch triggered by an unknown `kid` per this many seconds.
    public var unknownKeyCooldown: Double = 5

    public init() {}
}
