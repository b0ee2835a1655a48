import CurlHTTP
import Foundation
import Gateway
import Testing
import TestSupport

/// `GET /openapi.yaml` serves the document compiled into the binary, with no file beside it.
@Suite("OpenAPI endpoint")
struct OpenAPIEndpointTests {
    @Test("GET /openapi.yaml answers the embedded document as application/yaml, without credentials")
    func servesTheDocument() async throws {
        try await GatewayHarness.run { gateway in
            let answer = try await gateway.get("/openapi.yaml")
            #expect(answer.status == 200)
            #expect(answer.header("content-type") == "application/yaml")
            #expect(answer.header("x-request-id") != nil)
            #expect(answer.body == Array(OpenAPIDocument.yaml.utf8))
            #expect(String(decoding: answer.body.prefix(14), as: UTF8.self) == "openapi: 3.1.0")

            let head = try await gateway.request("HEAD", "/openapi.yaml")
            #expect(head.status == 200)
            #expect(head.header("content-length") == String(OpenAPIDocument.yaml.utf8.count))

            let post = try await gateway.request("POST", "/openapi.yaml", body: [])
            #expect(post.status == 405)
        }
    }
}
