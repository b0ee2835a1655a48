import CurlHTTP
@testable import MockOpenAI
import Testing

@Suite("Call counts")
struct CallCountsTests {
    @Test func countsEveryRequestPerEndpointWithoutCountingItself() async throws {
        try await withMockServer { mock in
            _ = try await mock.post("/chat/completions", json: chatBody())
            _ = try await mock.post("/chat/completions", json: chatBody(user: "Another story."))
            _ = try await mock.post("/moderations", json: #"{"input":"x"}"#)
            _ = try await mock.post("/moderations", json: #"{"input":"x"}"#, key: nil)  // refused, still received
            _ = try await mock.client.execute(CurlRequest(url: mock.baseURL + "/moderations"))  // 405: not an endpoint's request
            let counts = CurlRequest(url: "http://127.0.0.1:\(mock.port)/__mock/calls")  // no key
            let first = try await mock.client.execute(counts)
            #expect(first.status == 200)
            #expect(first.header("Content-Type") == "application/json")
            // {"chat.completions": 2, "audio.speech": 0, "images.generations": 0, "images.edits": 0, "moderations": 2, "total": 4}
            #expect(first.json == .object([
                "chat.completions": .number(2), "audio.speech": .number(0), "images.generations": .number(0),
                "images.edits": .number(0), "moderations": .number(2), "total": .number(4),
            ]))
            let again = try await mock.client.execute(counts)
            #expect(again.body == first.body, "reading the counts is not counted")
            #expect(mock.server.calls == [
                .chatCompletions: 2, .audioSpeech: 0, .imagesGenerations: 0, .imagesEdits: 0, .moderations: 2,
            ])
            #expect(mock.server.requests.count == 4, "nor recorded")
        }
    }

    @Test func countsAreNotBoundedByTheRecordLimit() async throws {
        try await withMockServer({ $0.recordLimit = 2 }) { mock in
            for index in 1...5 {
                _ = try await mock.post("/moderations", json: #"{"input":"\#(index)"}"#)
            }
            #expect(mock.server.requests.count == 2)
            #expect(mock.server.calls[.moderations] == 5)
        }
    }

    @Test func answeredAtOnceUnderLatency() async throws {
        try await withMockServer({ $0.latency = .seconds(30) }) { mock in
            let counts = try await mock.client.execute(CurlRequest(url: "http://127.0.0.1:\(mock.port)/__mock/calls/", timeout: .seconds(5)))
            #expect(counts.status == 200)
            #expect(counts.json["total"] == .number(0))
        }
    }

    @Test func onlyGet() async throws {
        try await withMockServer { mock in
            let url = "http://127.0.0.1:\(mock.port)/__mock/calls"
            let post = try await mock.client.execute(CurlRequest(url: url, method: "POST", body: Array("{}".utf8)))
            expectOpenAIError(post, status: 405)
            #expect(post.header("Allow") == "GET")
            #expect(mock.server.calls.values.reduce(0, +) == 0)
        }
    }
}
