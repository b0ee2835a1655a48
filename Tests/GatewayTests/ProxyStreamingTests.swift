import AsyncHTTPClient
import Gateway
import GatewayConfig
import NIOCore
import NIOHTTP1
import Testing
import TestSupport

/// Large bodies through the proxy with flat memory. Serialized, and the bound is generous, because the client,
/// the gateway and the upstream share this test process with the other suites running in parallel: the check
/// is that the proxy never holds a body (which would add at least 50 MB, and 100 MB for both directions),
/// not an exact figure.
@Suite("Proxy streaming", .serialized)
struct ProxyStreamingTests {
    static let size = 50 * 1024 * 1024
    /// Peak resident growth allowed during the transfer.
    static let allowedGrowth = 40 * 1024 * 1024

    @Test("50 MB up and 50 MB down at once (the upstream mirrors as it reads): intact, with flat memory")
    func fiftyMegabytesBothWays() async throws {
        try await ProxyFixture.run(configure: { $0.server.maxBodyBytes = 64 * 1024 * 1024 }) { gateway, _ in
            try await ProxyFixture.withStreamingClient { client in
                // Warm up the pools, the connections and the pattern table before measuring.
                _ = try await Self.mirror(client, port: gateway.port, size: 16 * 1024 * 1024)
                // The peak is the whole test process's, so another suite's allocations can land in one transfer's
                // window: a second transfer is measured when the first is over the bound. A proxy that held a body
                // is over it every time (at least 50 MiB more), so the check stays as strict.
                var growths: [Int] = []
                for _ in 0..<2 {
                    let before = try #require(ProcessMemory.residentBytes())
                    try #require(ProcessMemory.resetPeak(), "cannot reset VmHWM through /proc/self/clear_refs")
                    let checker = try await Self.mirror(client, port: gateway.port, size: Self.size)
                    let peak = try #require(ProcessMemory.peakResidentBytes())
                    #expect(checker.count == Self.size)
                    #expect(checker.intact)
                    growths.append(peak - before)
                    if peak - before < Self.allowedGrowth { break }
                }
                let growth = try #require(growths.min())
                #expect(
                    growth < Self.allowedGrowth,
                    "peak resident memory grew by \(growths.map { $0 / 1024 / 1024 }) MiB while 50 MB streamed each way"
                )
            }
        }
    }

    /// POSTs `size` pattern bytes to the upstream's `/mirror` through the gateway and checks what comes back.
    static func mirror(_ client: HTTPClient, port: Int, size: Int) async throws -> BodyPattern.Checker {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/open/mirror")
        request.method = .POST
        request.body = .stream(PatternBody(total: size), length: .known(Int64(size)))
        let response = try await client.execute(request, timeout: .seconds(120))
        #expect(response.status.code == 200)
        var checker = BodyPattern.Checker()
        for try await buffer in response.body { checker.consume(buffer) }
        return checker
    }
}
