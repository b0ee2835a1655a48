import GatewayConfig
import HTTPTypes
import IDTokens
public import Logging
import Synchronization

/// What the gateway learned about one request on its way through, for the access log and the metrics.
struct RequestRecord {
    /// The route's name; `-` when no route matched.
    var route = "-"
    /// `firebase`, `dev`, or `-` when the request carried no identity.
    var authSource = "-"
    var uid: String?
    /// `allowed`, `limited`, `shadow`, `store_error`, or `-` for routes without a limit.
    var rateLimit = "-"
    /// The App Check outcome (`valid`, `missing`, `replayed`, …) on routes with App Check on; nil elsewhere.
    var appCheck: String?
    /// Why the request was refused, when it was (an error's reason label).
    var errorReason: String?
    /// What the Idempotency-Key did: started, replayed, joined, in_flight, reused, unguarded.
    var idempotency: String?
    /// The client's address after `TRUSTED_PROXIES` (``ClientAddress``).
    var client: String?
    /// The request body's bytes as declared (`Content-Length`, 0 without a body); nil for a chunked body.
    var bytesIn: Int?
    /// The answer body's bytes when its length is known before it is written; nil for a body streamed without one.
    var bytesOut: Int?
    /// The upstream's `host:port`, for proxied routes.
    var upstream: String?

    /// Notes what the request head tells: the client, the declared body length and the route's upstream.
    mutating func noteRequest(_ fields: HTTPFields, peer: String?, trustedProxies: [IPAddressRange], route: Route?) {
        self.client = ClientAddress.resolve(peer: peer, headers: fields, trustedProxies: trustedProxies)
        if fields[.transferEncoding] == nil { self.bytesIn = fields[.contentLength].map { Int($0) ?? 0 } ?? 0 }
        self.upstream = route?.upstream?.target.authority
    }

    /// Notes the answer's body length, when known (nothing for HEAD).
    mutating func noteAnswer(bodyLength: Int?, headers: HTTPFields, method: HTTPRequest.Method) {
        self.bytesOut = method == .head ? 0 : bodyLength ?? headers[.contentLength].flatMap { Int($0) }
    }
}

/// The time an upstream took to answer, set by the proxy for the access log (allocated for upstream routes only).
public final class UpstreamTiming: Sendable {
    private let nanoseconds = Atomic<Int64>(-1)

    init() {}

    func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.nanoseconds.store(seconds * 1_000_000_000 + attoseconds / 1_000_000_000, ordering: .relaxed)
    }

    /// Milliseconds, or nil when no upstream answered.
    var milliseconds: Double? {
        let value = self.nanoseconds.load(ordering: .relaxed)
        return value < 0 ? nil : Double(value) / 1_000_000
    }
}

/// Where the access log's lines go.
public enum AccessLogOutput: Sendable {
    /// Through this logger, as `info` events with the fields as metadata (any swift-log backend).
    case logger(Logger)
    /// Straight to standard error (through ``LogLineWriter``) in ``JSONLogHandler``'s format, the same line it would
    /// write for the `logger` case with `label`, when `level` lets `info` through. Built directly: no metadata
    /// dictionary, key sort or boxed numbers, which cost a fifth of a proxied request's CPU. `storygate serve` uses it.
    case jsonStandardError(label: String, level: Logger.Level)
}

/// One JSON line per request: time, request id, route, method, path (without the query, which may carry anything),
/// status, latency, a hash of the uid, the auth source, the rate-limit outcome, the client address, the body bytes
/// in and out, and the upstream and its latency. Never a token, a key, a header value or a raw uid.
struct AccessLog: Sendable {
    let output: AccessLogOutput

    func log(
        requestID: String, method: String, path: String, status: Int, latency: Duration, record: RequestRecord,
        upstream: UpstreamTiming?
    ) {
        switch self.output {
        case .logger(let logger):
            logger.info(
                "request",
                metadata: Self.metadata(
                    requestID: requestID, method: method, path: path, status: status, latency: latency, record: record, upstream: upstream
                )
            )
        case .jsonStandardError(let label, let level):
            guard level <= .info else { return }
            let line = Self.jsonLine(
                label: label, time: HTTPDate.rfc3339(WallClock.now()), requestID: requestID, method: method, path: path,
                status: status, latency: latency, record: record, upstream: upstream
            )
            LogLineWriter.standardError.append(line, urgent: false)
        }
    }

    /// The fields as swift-log metadata.
    static func metadata(
        requestID: String, method: String, path: String, status: Int, latency: Duration, record: RequestRecord, upstream: UpstreamTiming?
    ) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "request_id": .string(requestID),
            "route": .string(record.route),
            "method": .string(method),
            "path": .string(Self.loggablePath(path)),
            "status": .stringConvertible(status),
            "latency_ms": .stringConvertible(Self.milliseconds(latency)),
            "auth": .string(record.authSource),
            "rate_limit": .string(record.rateLimit),
        ]
        if let uid = record.uid { metadata["uid_hash"] = .string(UserHash.logIdentifier(uid)) }
        if let appCheck = record.appCheck { metadata["app_check"] = .string(appCheck) }
        if let reason = record.errorReason { metadata["error"] = .string(reason) }
        if let idempotency = record.idempotency { metadata["idempotency"] = .string(idempotency) }
        if let client = record.client { metadata["client"] = .string(client) }
        if let bytes = record.bytesIn { metadata["bytes_in"] = .stringConvertible(bytes) }
        if let bytes = record.bytesOut { metadata["bytes_out"] = .stringConvertible(bytes) }
        if let address = record.upstream { metadata["upstream"] = .string(address) }
        if let upstreamMilliseconds = upstream?.milliseconds { metadata["upstream_latency_ms"] = .stringConvertible(upstreamMilliseconds) }
        return metadata
    }

    /// What ``JSONLogHandler/line(label:level:message:metadata:time:)`` writes for ``metadata(requestID:method:path:status:latency:record:upstream:)``
    /// at `info` with the message `request`: the fixed members, then the fields in key order.
    static func jsonLine(
        label: String, time: String, requestID: String, method: String, path: String, status: Int, latency: Duration,
        record: RequestRecord, upstream: UpstreamTiming?
    ) -> String {
        var line = JSONLogHandler.start(label: label, level: .info, message: "request", time: time)
        if let appCheck = record.appCheck {
            line += ",\"app_check\":"
            JSONWriter.appendQuoted(appCheck, to: &line)
        }
        line += ",\"auth\":"
        JSONWriter.appendQuoted(record.authSource, to: &line)
        if let bytes = record.bytesIn {
            line += ",\"bytes_in\":"
            line += String(bytes)
        }
        if let bytes = record.bytesOut {
            line += ",\"bytes_out\":"
            line += String(bytes)
        }
        if let client = record.client {
            line += ",\"client\":"
            JSONWriter.appendQuoted(client, to: &line)
        }
        if let reason = record.errorReason {
            line += ",\"error\":"
            JSONWriter.appendQuoted(reason, to: &line)
        }
        if let idempotency = record.idempotency {
            line += ",\"idempotency\":"
            JSONWriter.appendQuoted(idempotency, to: &line)
        }
        line += ",\"latency_ms\":"
        line += JSONWriter.number(Self.milliseconds(latency))
        line += ",\"method\":"
        JSONWriter.appendQuoted(method, to: &line)
        line += ",\"path\":"
        JSONWriter.appendQuoted(Self.loggablePath(path), to: &line)
        line += ",\"rate_limit\":"
        JSONWriter.appendQuoted(record.rateLimit, to: &line)
        line += ",\"request_id\":"
        JSONWriter.appendQuoted(requestID, to: &line)
        line += ",\"route\":"
        JSONWriter.appendQuoted(record.route, to: &line)
        line += ",\"status\":"
        line += String(status)
        if let uid = record.uid {
            line += ",\"uid_hash\":"
            JSONWriter.appendQuoted(UserHash.logIdentifier(uid), to: &line)
        }
        if let address = record.upstream {
            line += ",\"upstream\":"
            JSONWriter.appendQuoted(address, to: &line)
        }
        if let upstreamMilliseconds = upstream?.milliseconds {
            line += ",\"upstream_latency_ms\":"
            line += JSONWriter.number(upstreamMilliseconds)
        }
        line += "}\n"
        return line
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return (Double(seconds) * 1000 + Double(attoseconds / 1_000_000_000) / 1_000_000).rounded(toPlaces: 3)
    }

    /// The path only (no query), at most 256 bytes, and only printable ASCII (anything else becomes `?`).
    static func loggablePath(_ path: String) -> String {
        let bytes = path.utf8.prefix(256).map { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") ? $0 : UInt8(ascii: "?") }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Double {
    fileprivate func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
