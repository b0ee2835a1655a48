import CurlHTTP
import IDTokens

/// Google's x509 certificate endpoint, fetched over HTTPS with the gateway's libcurl client.
struct CurlCertificateSource: CertificateSource {
    struct FetchError: Error, CustomStringConvertible {
        let status: Int
        var description: String { "certificate endpoint answered HTTP \(self.status)" }
    }

    let url: String
    let client: CurlClient

    var description: String { self.url }

    func fetch() async throws -> CertificateDocument {
        var request = CurlRequest(url: self.url)
        request.headers = [CurlHeader("Accept", "application/json")]
        request.connectTimeout = .seconds(5)
        request.timeout = .seconds(10)
        request.maxResponseBytes = 1 << 20
        let response = try await self.client.execute(request)
        guard response.status == 200 else { throw FetchError(status: response.status) }
        return CertificateDocument(
            body: response.body,
            maxAge: CacheControl.freshness(cacheControl: response.headerValues("cache-control"), age: response.headerValues("age"))
        )
    }
}
