import Logging
import Testing

@testable import Gateway

/// `storygate serve` writes access lines itself (``AccessLogOutput/jsonStandardError(label:level:)``): each must be
/// exactly the line ``JSONLogHandler`` writes for the same fields through swift-log.
@Suite("Access log line")
struct AccessLogLineTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let path: String
        let status: Int
        let uid: String?
        let error: String?
        let upstreamNanoseconds: Int64?
        var testDescription: String { self.name }
    }

    static let cases: [Case] = [
        Case(name: "proxied, verified", path: "/api/hello", status: 200, uid: "user-1", error: nil, upstreamNanoseconds: 1_234_567),
        Case(name: "refused", path: "/api/hello", status: 401, uid: nil, error: "token_expired", upstreamNanoseconds: nil),
        Case(name: "hostile path", path: "/a\"b\\c\u{1}d/é", status: 404, uid: nil, error: "not_found", upstreamNanoseconds: nil),
        Case(name: "upstream failed", path: "/open/x", status: 502, uid: "u", error: "unreachable", upstreamNanoseconds: nil),
        Case(name: "zero upstream time", path: "/", status: 204, uid: nil, error: nil, upstreamNanoseconds: 0),
    ]

    @Test("the direct line is JSONLogHandler's line for the same fields", arguments: Self.cases)
    func sameLine(_ example: Case) {
        var record = RequestRecord()
        record.route = "/api/"
        record.authSource = example.uid == nil ? "-" : "firebase"
        record.uid = example.uid
        record.rateLimit = "allowed"
        record.errorReason = example.error
        if example.upstreamNanoseconds != nil {
            record.client = "203.0.113.7"
            record.bytesIn = 12
            record.bytesOut = 345
            record.upstream = "127.0.0.1:9000"
        }
        let upstream = example.upstreamNanoseconds.map { nanoseconds -> UpstreamTiming in
            let timing = UpstreamTiming()
            timing.record(.nanoseconds(nanoseconds))
            return timing
        }
        let latency = Duration.nanoseconds(3_456_789)
        let time = "2026-11-25T02:50:00.123Z"
        let viaLogger = JSONLogHandler.line(
            label: "storygate.access", level: .info, message: "request",
            metadata: AccessLog.metadata(
                requestID: "r-1", method: "GET", path: example.path, status: example.status, latency: latency, record: record, upstream: upstream
            ),
            time: time
        )
        let direct = AccessLog.jsonLine(
            label: "storygate.access", time: time, requestID: "r-1", method: "GET", path: example.path, status: example.status,
            latency: latency, record: record, upstream: upstream
        )
        #expect(direct == viaLogger)
    }
}
