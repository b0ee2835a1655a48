internal import CoreMetrics
internal import CurlHTTP
internal import IDTokens
internal import Logging
internal import OpenAI

/// The S3 calls the media store makes (PUT, GET with `Range`, HEAD), over CurlHTTP with libcurl signing each request
/// (SigV4, `x-amz-content-sha256` sent as a header so it is signed too), retried by the OpenAI client's policy inside
/// one deadline. A store that stays unreachable, slow, or answers 5xx or 403 is ``FunctionError/storageUnavailable``.
struct S3Client: Sendable {
    let settings: S3Settings
    let http: CurlClient
    let logger: Logger
    let metrics: S3Metrics
    let jitter: RetryPolicy.Jitter

    /// SHA-256 of no bytes: the payload hash of a GET or HEAD.
    static let emptyPayloadHash = SHA256Digest.hex(SHA256Digest.hash([]))

    /// The answer to a request S3 answered definitively: a 2xx, 304, 404 or 416.
    struct Answer: Sendable {
        let response: CurlResponse
        var status: Int { self.response.status }
        /// `x-amz-meta-<name>` of the answer (Google Cloud Storage may answer with `x-goog-meta-<name>`).
        func metadata(_ name: String) -> String? {
            self.response.header("x-amz-meta-\(name)") ?? self.response.header("x-goog-meta-\(name)")
        }
    }

    /// Stores `body` as `name` with `contentType` and `metadata` (as `x-amz-meta-*` fields, ASCII values).
    func put(_ name: String, body: [UInt8], contentType: String, metadata: [(String, String)]) async throws(FunctionError) {
        var headers = [CurlHeader("Content-Type", contentType)]
        headers += metadata.map { CurlHeader("x-amz-meta-\($0.0)", $0.1) }
        let answer = try await self.send("put", name: name, method: "PUT", headers: headers, body: body, maxResponseBytes: 64 * 1024)
        guard (200..<300).contains(answer.status) else { throw self.unavailable("put", status: answer.status) }
    }

    /// `GET` of `name`, all of it or `range` (which must not be empty); nil when there is no such object.
    func get(_ name: String, range: Range<Int>?, maxBytes: Int) async throws(FunctionError) -> Answer? {
        var headers: [CurlHeader] = []
        if let range { headers.append(CurlHeader("Range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)")) }
        let answer = try await self.send("get", name: name, method: "GET", headers: headers, body: nil, maxResponseBytes: maxBytes)
        switch answer.status {
        case 200, 206, 416: return answer
        case 404: return nil
        default: throw self.unavailable("get", status: answer.status)
        }
    }

    /// `HEAD` of `name`; nil when there is no such object.
    func head(_ name: String) async throws(FunctionError) -> Answer? {
        let answer = try await self.send("head", name: name, method: "HEAD", headers: [], body: nil, maxResponseBytes: 0)
        switch answer.status {
        case 200: return answer
        case 404: return nil
        default: throw self.unavailable("head", status: answer.status)
        }
    }

    // MARK: Attempts

    private enum Attempt {
        case answered(Answer)
        case failed(RetryPolicy.Failure, status: Int?, kind: String, retryAfter: Duration?)
        /// The caller's task was cancelled (the client left): says nothing about the store.
        case cancelled
    }

    private func send(
        _ operation: String, name: String, method: String, headers: [CurlHeader], body: [UInt8]?, maxResponseBytes: Int
    ) async throws(FunctionError) -> Answer {
        guard let address = S3Address(name: name, settings: self.settings) else { throw self.unavailable(operation, status: nil) }
        let payloadHash = body.map { SHA256Digest.hex(SHA256Digest.hash($0)) } ?? Self.emptyPayloadHash
        let signing = AWSSigV4(
            region: self.settings.region, service: "s3",
            accessKeyID: self.settings.credentials.accessKeyID, secretAccessKey: self.settings.credentials.secretAccessKey
        )
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start.advanced(by: self.settings.deadline)
        var attempt = 0
        while true {
            attempt += 1
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero, !Task.isCancelled else { break }
            let request = CurlRequest(
                url: address.url, method: method, headers: [CurlHeader("x-amz-content-sha256", payloadHash)] + headers, body: body,
                connectTimeout: min(.seconds(2), remaining), timeout: min(self.settings.attemptTimeout, remaining),
                maxResponseBytes: maxResponseBytes, awsSigV4: signing
            )
            let (failure, status, label, retryAfter): (RetryPolicy.Failure, Int?, String, Duration?)
            switch await self.attempt(request) {
            case .answered(let answer):
                self.metrics.finished(operation, outcome: "ok", duration: start.duration(to: clock.now))
                return answer
            case .failed(let kind, let failedStatus, let kindLabel, let wait):
                (failure, status, label, retryAfter) = (kind, failedStatus, kindLabel, wait)
            case .cancelled:
                throw .storageUnavailable
            }
            self.logger.warning("Media store request failed", metadata: [
                "s3.operation": "\(operation)", "s3.status": "\(status.map(String.init) ?? "none")",
                "s3.attempt": .stringConvertible(attempt), "s3.error": "\(label)",
            ])
            let decision = self.settings.retryPolicy.decide(
                afterAttempt: attempt, failure: failure, retryAfter: retryAfter, remaining: clock.now.duration(to: deadline),
                jitter: self.jitter
            )
            guard case .retry(let wait) = decision else {
                self.metrics.finished(operation, outcome: "unavailable", duration: start.duration(to: clock.now))
                throw self.unavailable(operation, status: status, logged: true)
            }
            do { try await Task.sleep(for: wait) } catch { throw .storageUnavailable }
        }
        if Task.isCancelled { throw .storageUnavailable }
        self.metrics.finished(operation, outcome: "unavailable", duration: start.duration(to: clock.now))
        throw self.unavailable(operation, status: nil)
    }

    private func attempt(_ request: CurlRequest) async -> Attempt {
        let response: CurlResponse
        do {
            response = try await self.http.execute(request)
        } catch let error as CurlError {
            if error == .cancelled || Task.isCancelled { return .cancelled }
            // A slow store is retried like an unreachable one, inside the deadline.
            let failure: RetryPolicy.Failure = error.isConnectionError || error == .timeout ? .connection : .permanent
            return .failed(failure, status: nil, kind: error.shortDescription, retryAfter: nil)
        } catch {
            return .failed(.permanent, status: nil, kind: "other", retryAfter: nil)
        }
        switch response.status {
        case 200..<300, 304, 416:
            return .answered(Answer(response: response))
        case 404 where !String(decoding: response.body.prefix(512), as: UTF8.self).contains("NoSuchBucket"):
            return .answered(Answer(response: response))
        case 403:
            // A refused signature may be clock skew or a key being rotated: retried like an unavailable store.
            return .failed(.status(503), status: 403, kind: "forbidden", retryAfter: nil)
        default:
            let retryAfter = response.header("Retry-After").flatMap { Int($0) }.map { Duration.seconds(min(30, max(0, $0))) }
            return .failed(.status(response.status), status: response.status, kind: "status", retryAfter: retryAfter)
        }
    }

    private func unavailable(_ operation: String, status: Int?, logged: Bool = false) -> FunctionError {
        self.metrics.unavailable()
        if !logged {
            self.logger.warning("Media store unavailable", metadata: [
                "s3.operation": "\(operation)", "s3.status": "\(status.map(String.init) ?? "none")",
            ])
        }
        return .storageUnavailable
    }
}

/// The store's metrics: `storygate_media_store_requests_total{operation, outcome}`, the duration of each operation
/// (retries included) in `storygate_media_store_request_duration_seconds{operation}`, and
/// `storygate_media_store_up`, 1 while the last operation succeeded, 0 after one gave up.
struct S3Metrics: Sendable {
    let factory: any MetricsFactory

    func finished(_ operation: String, outcome: String, duration: Duration) {
        Counter(label: "storygate_media_store_requests_total", dimensions: [("operation", operation), ("outcome", outcome)], factory: self.factory)
            .increment()
        Timer(label: "storygate_media_store_request_duration_seconds", dimensions: [("operation", operation)], factory: self.factory)
            .recordNanoseconds(Int64(duration.components.seconds) * 1_000_000_000 + Int64(duration.components.attoseconds / 1_000_000_000))
        if outcome == "ok" { self.up(true) }
    }

    func unavailable() {
        self.up(false)
    }

    func up(_ healthy: Bool) {
        Gauge(label: "storygate_media_store_up", factory: self.factory).record(healthy ? 1 : 0)
    }
}
