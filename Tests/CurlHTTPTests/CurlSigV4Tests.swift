import CurlHTTP
import Synchronization
import Testing
import TestSupport

/// `CurlRequest.awsSigV4`: libcurl (7.88 on Debian 12) signs the request itself. What it signs is what the S3 store
/// relies on: its own `Host` and `X-Amz-Date`, and every header the request sets (`x-amz-content-sha256` among them);
/// no removal line of ours (`Expect:`) may reach the signed list, since it is never sent.
@Suite("CurlClient AWS SigV4 signing", .timeLimit(.minutes(1)))
struct CurlSigV4Tests {
    @Test func libcurlSignsEveryHeaderTheRequestSendsAndNothingElse() async throws {
        let seen = Mutex<LocalRequest?>(nil)
        try await withLocalHTTPServer({ request in
            seen.withLock { $0 = request }
            return LocalResponse(status: 200)
        }) { server in
            try await withRunningClient { client in
                let request = CurlRequest(
                    url: server.baseURL + "/bucket/a/b.png", method: "PUT",
                    headers: [CurlHeader("x-amz-content-sha256", "abc"), CurlHeader("Content-Type", "image/png"), CurlHeader("x-amz-meta-owner", "o")],
                    body: Array(repeating: 7, count: 2000),
                    awsSigV4: AWSSigV4(region: "eu-west-1", service: "s3", accessKeyID: "AKIDEXAMPLE", secretAccessKey: "never-sent")
                )
                let response = try await client.execute(request)
                #expect(response.status == 200)
            }
        }
        let request = try #require(seen.withLock { $0 })
        let authorization = try #require(request.header("authorization"))
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"))
        #expect(authorization.contains("/eu-west-1/s3/aws4_request"))
        #expect(authorization.contains("SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-meta-owner,"), "\(authorization)")
        #expect(request.header("x-amz-date") != nil)
        #expect(!request.headers.contains { $0.value.contains("never-sent") })
        #expect(request.body.count == 2000)
    }

    @Test func unprintableKeysAreRefusedBeforeLibcurl() async throws {
        try await withRunningClient { client in
            await expectCurlError(.invalidRequest) {
                _ = try await client.execute(CurlRequest(
                    url: "http://127.0.0.1:9/", awsSigV4: AWSSigV4(region: "us-east-1", service: "s3", accessKeyID: "AK\nID", secretAccessKey: "s")
                ))
            }
        }
    }
}
