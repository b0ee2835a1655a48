import Testing

@testable import CurlHTTP

@Suite("CurlRequest validation")
struct CurlRequestValidationTests {
    private func isValid(_ request: CurlRequest) -> Bool {
        (try? request.validate()) != nil
    }

    @Test func acceptsOrdinaryRequests() {
        #expect(self.isValid(CurlRequest(url: "https://www.googleapis.com/robot/v1/metadata/x509/x")))
        #expect(self.isValid(CurlRequest(url: "HTTP://127.0.0.1:8080/a?b=c", method: "PATCH", headers: [CurlHeader("X-Empty", "")])))
    }

    @Test(arguments: ["ftp://example.com/", "file:///etc/passwd", "example.com", "http://exa mple.com/", "http://a/\r\nX: y"])
    func rejectsOtherSchemesAndControlCharacters(url: String) {
        #expect(!self.isValid(CurlRequest(url: url)))
    }

    @Test func rejectsHeaderInjectionAndBadTokens() {
        let url = "http://127.0.0.1/"
        #expect(!self.isValid(CurlRequest(url: url, headers: [CurlHeader("X-A", "1\r\nX-Injected: 2")])))
        #expect(!self.isValid(CurlRequest(url: url, headers: [CurlHeader("Bad Name", "1")])))
        #expect(!self.isValid(CurlRequest(url: url, headers: [CurlHeader("", "1")])))
        #expect(!self.isValid(CurlRequest(url: url, method: "GET /evil")))
        #expect(!self.isValid(CurlRequest(url: url, timeout: .zero)))
        #expect(!self.isValid(CurlRequest(url: url, maxResponseBytes: -1)))
    }
}
