import AsyncHTTPClient
import Gateway
import NIOCore
import NIOHTTP1
import StoryFunctions
import Testing
import TestSupport

/// A large object from the S3 store through `/media/<key>` with flat memory: the gateway reads it in 256 KiB
/// ranged GETs and never holds it. Serialized with a generous bound, as `ProxyStreamingTests`: the test process is
/// shared with other suites; an answer held whole would add the object's 48 MB at least.
@Suite("S3 media streaming", .serialized)
struct S3MediaStreamingTests {
    static let size = 48 * 1024 * 1024
    static let allowedGrowth = 32 * 1024 * 1024

    @Test("a 48 MB object streamed from the bucket: intact, with flat memory")
    func largeObjectWithFlatMemory() async throws {
        try await withMotoServer { moto in
            try await GatewayHarness.run(configure: S3MediaEndToEndTests.s3(moto)) { gateway in
                let key = try await Self.storeLargeObject(gateway.application.media)
                try await ProxyFixture.withStreamingClient { client in
                    var growths: [Int] = []
                    for _ in 0..<2 {
                        let before = try #require(ProcessMemory.residentBytes())
                        try #require(ProcessMemory.resetPeak(), "cannot reset VmHWM through /proc/self/clear_refs")
                        let (count, intact) = try await Self.download(client, port: gateway.port, key: key)
                        let peak = try #require(ProcessMemory.peakResidentBytes())
                        #expect(count == Self.size && intact)
                        growths.append(peak - before)
                        if peak - before < Self.allowedGrowth { break }
                    }
                    let growth = try #require(growths.min())
                    #expect(growth < Self.allowedGrowth, "peak resident memory grew by \(growths.map { $0 / 1024 / 1024 }) MiB")
                }
            }
        }
    }

    /// Stores `size` bytes of `byte(at:)` and returns the key; the bytes are freed before anything is measured.
    static func storeLargeObject(_ media: any MediaStore) async throws -> String {
        let bytes = (0..<Self.size).map(Self.byte(at:))
        return try await media.put(bytes, contentType: "audio/mpeg", owner: "big", kind: .storyAudio).key
    }

    static func byte(at offset: Int) -> UInt8 { UInt8(truncatingIfNeeded: offset &* 31 &+ offset >> 12) }

    static func download(_ client: HTTPClient, port: Int, key: String) async throws -> (Int, Bool) {
        let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/media/\(key)"), timeout: .seconds(120))
        #expect(response.status.code == 200)
        var count = 0, intact = true
        for try await buffer in response.body {
            buffer.withUnsafeReadableBytes { bytes in
                for (index, byte) in bytes.enumerated() where byte != Self.byte(at: count + index) { intact = false }
            }
            count += buffer.readableBytes
        }
        return (count, intact)
    }
}
