import Testing

@testable import CurlHTTP

@Suite("ResponseAccumulator")
struct ResponseAccumulatorTests {
    private func feed(_ lines: [String], into accumulator: inout ResponseAccumulator) {
        for line in lines {
            accumulator.appendHeaderLine(Array(line.utf8))
        }
    }

    @Test func parsesFieldsKeepingNamesAndOrder() {
        var accumulator = ResponseAccumulator(maxBodyBytes: 10)
        self.feed(["HTTP/1.1 200 OK\r\n", "Content-Type:  application/json \r\n", "X-Thing: a\r\n", "x-thing: b\r\n", "\r\n"], into: &accumulator)
        #expect(accumulator.headers == [CurlHeader("Content-Type", "application/json"), CurlHeader("X-Thing", "a"), CurlHeader("x-thing", "b")])
        let response = CurlResponse(status: 200, headers: accumulator.headers)
        #expect(response.header("X-THING") == "b", "case-insensitive, last value")
        #expect(response.header("missing") == nil)
    }

    @Test func aNewStatusLineStartsANewHeaderBlock() {
        var accumulator = ResponseAccumulator(maxBodyBytes: 10)
        self.feed(["HTTP/1.1 100 Continue\r\n", "X-Interim: 1\r\n", "\r\n", "HTTP/1.1 201 Created\r\n", "Location: /x\r\n", "\r\n"], into: &accumulator)
        #expect(accumulator.headers == [CurlHeader("Location", "/x")])
    }

    @Test func foldedLinesContinueThePreviousValue() {
        var accumulator = ResponseAccumulator(maxBodyBytes: 10)
        self.feed(["HTTP/1.1 200 OK\r\n", "X-Long: first\r\n", "\t second\r\n", "NoColonHere\r\n"], into: &accumulator)
        #expect(accumulator.headers == [CurlHeader("X-Long", "first second")])
    }

    @Test func refusesBodyPastTheLimit() {
        var accumulator = ResponseAccumulator(maxBodyBytes: 5)
        let accepted = [UInt8]("abc".utf8).withUnsafeBytes { accumulator.appendBody($0) }
        let refused = [UInt8]("def".utf8).withUnsafeBytes { accumulator.appendBody($0) }
        #expect(accepted)
        #expect(!refused)
        #expect(accumulator.exceededLimit)
        #expect(accumulator.body == Array("abc".utf8))
    }

    @Test func acceptsBodyExactlyAtTheLimit() {
        var accumulator = ResponseAccumulator(maxBodyBytes: 3)
        let accepted = [UInt8]("abc".utf8).withUnsafeBytes { accumulator.appendBody($0) }
        #expect(accepted)
        #expect(!accumulator.exceededLimit)
    }
}
