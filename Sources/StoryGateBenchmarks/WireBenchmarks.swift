import HTTPWire

/// Request heads read by `RawRequestHead`, the gateway's one request reader: the common body-less GET with a
/// Firebase ID token, and a POST with a body and an App Check token. Per second of this thread's CPU time, best of
/// five rounds.
enum WireBenchmarks {
    static func run() {
        let token = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImJlbmNoLWtleSJ9." + String(repeating: "eyJzdWIiOiJiZW5jaFVzZXIifQ", count: 30)
            + ".c2lnbmF0dXJlLWJ5dGVzLWJhc2U2NHVybA"
        let heads = [
            (
                "GET with a token",
                "GET /api/items/42?view=full HTTP/1.1\r\nHost: gateway.example\r\nUser-Agent: wrk/4.2\r\nAccept: */*\r\n"
                    + "Authorization: Bearer \(token)\r\n\r\n"
            ),
            (
                "POST with a body",
                "POST /functions/v1/story-generation HTTP/1.1\r\nHost: gateway.example\r\nUser-Agent: app/1.0\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 1024\r\nAuthorization: Bearer \(token)\r\n"
                    + "X-Firebase-AppCheck: \(token)\r\nAccept-Encoding: gzip, br\r\n\r\n"
            ),
        ]
        for (name, text) in heads {
            let bytes = Array(text.utf8)
            let rate = (0..<5).map { _ in
                TokenBenchmarks.measureWithCPUTime(seconds: 0.5) { iterations in
                    bytes.withUnsafeBytes { raw in
                        for _ in 0..<iterations {
                            guard case .complete = RawRequestHead.parse(raw, maxBytes: 32 * 1024, maxFields: 100) else {
                                fatalError("benchmark head not read")
                            }
                        }
                    }
                }.cpu
            }.max()!
            print("RawRequestHead.parse, \(name) (\(bytes.count) bytes): \(Int(rate)) per CPU-second (\(Int(1e9 / rate)) ns each)")
        }
    }
}
