/// Something that hands out OAuth 2.0 access tokens for Google APIs (`Authorization: Bearer <token>`).
public protocol AccessTokenSource: Sendable {
    /// A token valid for a while yet; fetched, cached and refreshed as the source sees fit.
    func accessToken() async throws -> String
}
