public import CurlHTTP
public import GoogleAuth
import IDTokens

/// `POST {base}/v1/projects/<project id>/accounts:lookup` with `{"localId":["<uid>"]}` and a service-account access
/// token, over ``CurlClient``: what the Firebase Admin SDK's `verifyIdToken(token, checkRevoked: true)` asks.
public struct IdentityToolkitLookup: AccountLookup {
    /// Google's endpoint, the default base URL.
    public static let defaultBaseURL = "https://identitytoolkit.googleapis.com"

    private let url: String
    private let client: CurlClient
    private let tokens: any AccessTokenSource
    private let timeout: Duration

    /// - Parameter baseURL: `IDENTITY_TOOLKIT_URL` (checked by the caller with ``GoogleEndpointURL/isAllowed(_:)``).
    public init(baseURL: String = Self.defaultBaseURL, projectID: String, client: CurlClient, tokens: any AccessTokenSource, timeout: Duration = .seconds(5)) {
        self.url = GoogleEndpointURL.trimmed(baseURL) + "/v1/projects/" + projectID + "/accounts:lookup"
        self.client = client
        self.tokens = tokens
        self.timeout = timeout
    }

    public func lookup(uid: String) async throws(AccountLookupError) -> UserAccountState {
        let accessToken: String
        do {
            accessToken = try await self.tokens.accessToken()
        } catch let error as GoogleAuthError {
            throw .credentials(error.shortDescription)
        } catch {
            throw .credentials("other")
        }
        let body = "{\"localId\":[" + JSONWriter.quoted(uid) + "]}"
        let request = CurlRequest(
            url: self.url, method: "POST",
            headers: [CurlHeader("Authorization", "Bearer " + accessToken), CurlHeader("Content-Type", "application/json")],
            body: Array(body.utf8), connectTimeout: min(self.timeout, .seconds(5)), timeout: self.timeout, maxResponseBytes: 256 * 1024
        )
        let response: CurlResponse
        do {
            response = try await self.client.execute(request)
        } catch let error as CurlError {
            throw .unreachable(error.shortDescription)
        } catch {
            throw .unreachable("other")
        }
        guard response.status == 200 else { throw .refused("status \(response.status)") }
        return try LookupResponse.state(from: response.body)
    }
}
