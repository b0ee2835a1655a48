import CurlHTTP
import Testing
import TestSupport

@Suite("CurlClient failures", .timeLimit(.minutes(1)))
struct CurlClientFailureTests {
    @Test func totalTimeoutAgainstAHangingHandler() async throws {
        try await withLocalHTTPServer({ _ in
            try await Task.sleep(for: .seconds(30))
            return .text("too late")
        }) { server in
            try await withRunningClient { client in
                let error = await expectCurlError(.timeout) {
                    _ = try await client.execute(CurlRequest(url: server.baseURL + "/hang", timeout: .milliseconds(300)))
                }
                #expect(error?.curlCode == 28)
                #expect(error?.isConnectionError == false)
            }
        }
    }

    @Test func connectFailureToAClosedPort() async throws {
        // Bound and never listening: refused. (A port freed and noted failed now and then: another test's server,
        // binding port 0 at the same time, could be handed it.)
        let closedPort = try refusingLoopbackPort()
        try await withRunningClient { client in
            let error = await expectCurlError(.connectFailed) {
                _ = try await client.get("http://127.0.0.1:\(closedPort)/")
            }
            #expect(error?.isConnectionError == true)
        }
    }

    @Test func responseOverTheLimitAbortsTheTransfer() async throws {
        try await withLocalHTTPServer({ _ in
            LocalResponse(body: [UInt8](repeating: 0x61, count: 64 * 1024))
        }) { server in
            try await withRunningClient { client in
                await expectCurlError(.responseTooLarge) {
                    _ = try await client.execute(CurlRequest(url: server.baseURL + "/big", maxResponseBytes: 1024))
                }
                let exact = try await client.execute(CurlRequest(url: server.baseURL + "/big", maxResponseBytes: 64 * 1024))
                #expect(exact.body.count == 64 * 1024)
            }
        }
    }

    @Test func chunkedResponseOverTheLimitAbortsTheTransfer() async throws {
        // No Content-Length up front: the limit is enforced while receiving.
        try await withLocalRawServer(.reply(Array(Self.chunkedResponse(chunks: 40, size: 1000).utf8))) { server in
            try await withRunningClient { client in
                await expectCurlError(.responseTooLarge) {
                    _ = try await client.execute(CurlRequest(url: server.baseURL + "/", maxResponseBytes: 10_000))
                }
            }
        }
    }

    @Test(arguments: [LocalRawServer.Behavior.closeOnAccept, .closeAfterRequest, .resetAfterRequest])
    func connectionClosedWithoutAnAnswer(behavior: LocalRawServer.Behavior) async throws {
        try await withLocalRawServer(behavior) { server in
            try await withRunningClient { client in
                let error = await expectCurlError(.connectionReset) {
                    _ = try await client.get(server.baseURL + "/")
                }
                #expect(error?.isConnectionError == true)
            }
        }
    }

    @Test func aHandlerThatThrowsClosesTheConnection() async throws {
        struct Boom: Error {}
        try await withLocalHTTPServer({ _ in throw Boom() }) { server in
            try await withRunningClient { client in
                await expectCurlError(.connectionReset) {
                    _ = try await client.get(server.baseURL + "/")
                }
            }
        }
    }

    @Test func garbageIsAnInvalidResponse() async throws {
        try await withLocalRawServer(.reply(Array("SSH-2.0-OpenSSH_9.2\r\n\r\n".utf8))) { server in
            try await withRunningClient { client in
                await expectCurlError(.invalidResponse) {
                    _ = try await client.get(server.baseURL + "/")
                }
            }
        }
    }

    @Test func invalidRequestsFailBeforeReachingTheNetwork() async throws {
        try await withRunningClient { client in
            await expectCurlError(.invalidRequest) {
                _ = try await client.get("ftp://127.0.0.1/")
            }
            await expectCurlError(.invalidRequest) {
                _ = try await client.execute(CurlRequest(url: "http://127.0.0.1/", headers: [CurlHeader("X", "a\r\nInjected: 1")]))
            }
        }
    }

    @Test func tlsHandshakeFailureIsAConnectFailure() async throws {
        // A plain TCP server that hangs up on the ClientHello.
        try await withLocalRawServer(.closeAfterRequest) { server in
            try await withRunningClient { client in
                let error = await expectCurlError(.connectFailed) {
                    _ = try await client.get("https://127.0.0.1:\(server.port)/")
                }
                #expect(error?.curlCode == 35)
            }
        }
    }

    @Test func configuredCABundleIsUsed() async throws {
        try await withLocalRawServer(.closeAfterRequest) { server in
            try await withRunningClient(.init(caBundlePath: "/nonexistent/storygate-ca.pem")) { client in
                let error = await expectCurlError(.other) {
                    _ = try await client.get("https://127.0.0.1:\(server.port)/")
                }
                #expect(error?.curlCode == 77, "CURLE_SSL_CACERT_BADFILE: the configured bundle was read")
            }
        }
    }

    private static func chunkedResponse(chunks: Int, size: Int) -> String {
        let chunk = String(size, radix: 16) + "\r\n" + String(repeating: "x", count: size) + "\r\n"
        return "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: chunk, count: chunks) + "0\r\n\r\n"
    }
}
