import Testing

@testable import CurlHTTP

@Suite("CurlError")
struct CurlErrorTests {
    @Test func shortDescriptionsAreStableLabels() {
        #expect(CurlError.timeout.shortDescription == "timeout")
        #expect(CurlError.connectFailed.shortDescription == "connect_failed")
        #expect(CurlError.connectionReset.shortDescription == "connection_reset")
        #expect(CurlError.responseTooLarge.shortDescription == "response_too_large")
        #expect(CurlError.invalidResponse.shortDescription == "invalid_response")
        #expect(CurlError.cancelled.shortDescription == "cancelled")
        #expect(CurlError.shutdown.shortDescription == "shutdown")
        #expect(CurlError.invalidRequest.shortDescription == "invalid_request")
        #expect(CurlError.other.shortDescription == "other")
    }

    @Test func equalityIgnoresCurlDetail() {
        let detailed = CurlError.timeout.with(curlCode: 28, detail: "Operation timed out after 100 milliseconds")
        #expect(detailed == .timeout)
        #expect(detailed != .connectFailed)
        #expect(detailed.curlCode == 28)
        #expect(detailed.description == "CurlError.timeout (CURLcode 28): Operation timed out after 100 milliseconds")
    }

    @Test func connectionErrorsAreTheRetryableOnes() {
        #expect(CurlError.connectFailed.isConnectionError)
        #expect(CurlError.connectionReset.isConnectionError)
        #expect(!CurlError.timeout.isConnectionError)
        #expect(!CurlError.responseTooLarge.isConnectionError)
        #expect(!CurlError.cancelled.isConnectionError)
        #expect(!CurlError.shutdown.isConnectionError)
        #expect(!CurlError.other.isConnectionError)
    }
}
