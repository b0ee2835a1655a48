import CurlHTTP
import Testing
import TestSupport

@Suite("CurlClient round trips", .timeLimit(.minutes(1)))
struct CurlClientRoundTripTests {
    @Test func getReturnsStatusHeadersAndBody() async throws {
        try await withLocalHTTPServer({ request in
            LocalResponse(
                status: 200,
                headers: [("Content-Type", "text/plain"), ("X-Echo-Path", request.path), ("X-Multi", "one"), ("X-Multi", "two")],
                body: Array("hello \(request.method)".utf8)
            )
        }) { server in
            try await withRunningClient { client in
                let response = try await client.get(server.baseURL + "/greeting?name=x")
                #expect(response.status == 200)
                #expect(response.bodyText == "hello GET")
                #expect(response.header("content-type") == "text/plain")
                #expect(response.header("X-Echo-Path") == "/greeting?name=x")
                #expect(response.header("x-multi") == "two")
                #expect(response.headers.filter { $0.name.lowercased() == "x-multi" }.map(\.value) == ["one", "two"])
                #expect(response.httpVersion == .http1_1)
            }
        }
    }

    @Test func postSendsBodyAndHeaders() async throws {
        try await withLocalHTTPServer({ request in
            #expect(request.method == "POST")
            #expect(request.header("x-api-key") == "k-123")
            #expect(request.header("content-type") == "application/json")
            #expect(request.header("expect") == nil, "no 100-continue round trip")
            return .json(#"{"echo":\#(request.bodyText)}"#, status: 201)
        }) { server in
            try await withRunningClient { client in
                let body = Array(#"{"n":1}"#.utf8)
                let response = try await client.execute(
                    CurlRequest(
                        url: server.baseURL + "/items",
                        method: "POST",
                        headers: [CurlHeader("Content-Type", "application/json"), CurlHeader("X-API-Key", "k-123")],
                        body: body
                    )
                )
                #expect(response.status == 201)
                #expect(response.bodyText == #"{"echo":{"n":1}}"#)
                #expect(response.header("Content-Type") == "application/json")
            }
        }
    }

    @Test func largeBinaryBodiesSurviveBothWays() async throws {
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try await withLocalHTTPServer({ request in
            LocalResponse(body: request.body.reversed())
        }) { server in
            try await withRunningClient { client in
                let response = try await client.execute(CurlRequest(url: server.baseURL + "/bin", method: "PUT", body: payload))
                #expect(response.status == 200)
                #expect(response.body == payload.reversed())
            }
        }
    }

    @Test func otherMethodsAreSentAsGiven() async throws {
        try await withLocalHTTPServer({ request in
            .text(request.method + " " + request.bodyText)
        }) { server in
            try await withRunningClient { client in
                let delete = try await client.execute(CurlRequest(url: server.baseURL + "/x", method: "DELETE"))
                #expect(delete.bodyText == "DELETE ")
                let patch = try await client.execute(CurlRequest(url: server.baseURL + "/x", method: "PATCH", body: Array("p".utf8)))
                #expect(patch.bodyText == "PATCH p")
                let head = try await client.execute(CurlRequest(url: server.baseURL + "/x", method: "HEAD"))
                #expect(head.status == 200)
                #expect(head.body.isEmpty)
            }
        }
    }

    @Test(arguments: [204, 301, 404, 429, 500, 503])
    func statusCodesAreResponsesNotErrors(status: Int) async throws {
        try await withLocalHTTPServer({ _ in
            LocalResponse(status: status, headers: [("Location", "/elsewhere")], body: status == 204 ? [] : Array("s".utf8))
        }) { server in
            try await withRunningClient { client in
                let response = try await client.get(server.baseURL + "/")
                #expect(response.status == status)
                #expect(server.requestCount == 1, "redirects are not followed by default")
            }
        }
    }

    @Test func redirectsAreFollowedOnlyWhenAsked() async throws {
        try await withLocalHTTPServer({ request in
            request.path == "/start"
                ? LocalResponse(status: 302, headers: [("Location", "/final"), ("X-Hop", "first")])
                : .text("arrived")
        }) { server in
            try await withRunningClient { client in
                let notFollowed = try await client.get(server.baseURL + "/start")
                #expect(notFollowed.status == 302)
                #expect(notFollowed.header("Location") == "/final")

                let followed = try await client.execute(CurlRequest(url: server.baseURL + "/start", maxRedirects: 3))
                #expect(followed.status == 200)
                #expect(followed.bodyText == "arrived")
                #expect(followed.header("X-Hop") == nil, "only the final response's headers")
            }
        }
    }

    @Test func manyConcurrentCallsOnOneClientAllComplete() async throws {
        try await withLocalHTTPServer({ request in
            .text(String(request.path.dropFirst()))
        }) { server in
            try await withRunningClient { client in
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<200 {
                        group.addTask {
                            let response = try await client.get(server.baseURL + "/\(index)")
                            return response.status == 200 && response.bodyText == "\(index)"
                        }
                    }
                    var correct = 0
                    for try await ok in group where ok {
                        correct += 1
                    }
                    #expect(correct == 200)
                }
                #expect(server.requestCount == 200)
            }
        }
    }

    @Test func sequentialCallsReuseOneConnection() async throws {
        try await withLocalHTTPServer({ _ in .text("ok") }) { server in
            try await withRunningClient { client in
                for _ in 0..<20 {
                    let response = try await client.get(server.baseURL + "/")
                    #expect(response.status == 200)
                }
                #expect(server.requestCount == 20)
                #expect(server.connectionCount == 1)
            }
        }
    }

    @Test func concurrentBurstsReuseConnections() async throws {
        try await withLocalHTTPServer({ _ in .text("ok") }) { server in
            try await withRunningClient(.init(maxConnectionsPerHost: 4)) { client in
                for _ in 0..<5 {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for _ in 0..<20 {
                            group.addTask { _ = try await client.get(server.baseURL + "/") }
                        }
                        try await group.waitForAll()
                    }
                }
                #expect(server.requestCount == 100)
                #expect(server.connectionCount <= 4)
            }
        }
    }
}
