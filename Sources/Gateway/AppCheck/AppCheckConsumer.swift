import CurlHTTP
import IDTokens

/// Consumes limited-use App Check tokens at Google's App Check API over libcurl, as the Admin SDK's
/// `verifyToken(token, {consume: true})` does; the answer says whether the token was used before.
struct AppCheckConsumer: Sendable {
    /// Why a token's replay state is unknown. Carries no token and no access token.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `APP_CHECK_API_URL`, without a trailing slash.
    let apiURL: String
    /// The Firebase project id in the path.
    let projectID: String
    /// A Google OAuth 2.0 access token for the service account (scope cloud-platform).
    let accessToken: @Sendable () async throws -> String
    let client: CurlClient

    init(apiURL: String, projectID: String, client: CurlClient, accessToken: @escaping @Sendable () async throws -> String) {
        var apiURL = apiURL
        while apiURL.hasSuffix("/") { apiURL.removeLast() }
        self.apiURL = apiURL
        self.projectID = projectID
        self.client = client
        self.accessToken = accessToken
    }

    /// Whether `token` (already verified) was consumed before this call; this call consumes it.
    func consume(_ token: Substring) async throws(Failure) -> Bool {
        let bearer: String
        do {
            bearer = try await self.accessToken()
        } catch {
            throw Failure(description: "no Google access token: \(error)")
        }
        var request = CurlRequest(url: self.apiURL + AppCheckConsumption.path(projectID: self.projectID), method: "POST")
        request.headers = [
            CurlHeader("Authorization", "Bearer " + bearer), CurlHeader("Content-Type", "application/json"), CurlHeader("Accept", "application/json"),
        ]
        request.body = AppCheckConsumption.requestBody(token: token)
        request.connectTimeout = .seconds(5)
        request.timeout = .seconds(10)
        request.maxResponseBytes = 64 * 1024
        let response: CurlResponse
        do {
            response = try await self.client.execute(request)
        } catch {
            throw Failure(description: "App Check API unreachable: \((error as? CurlError)?.shortDescription ?? "error")")
        }
        guard response.status == 200 else { throw Failure(description: "App Check API answered HTTP \(response.status)") }
        guard let alreadyConsumed = AppCheckConsumption.alreadyConsumed(responseBody: response.body) else {
            throw Failure(description: "App Check API answer is not a JSON object with a boolean alreadyConsumed")
        }
        return alreadyConsumed
    }
}
