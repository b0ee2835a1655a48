import CurlHTTP
import Foundation
import Logging

extension OpenAIClient {
    /// One attempt's failure: the error it maps to, whether it may be retried, and the server's wait.
    private struct AttemptFailure {
        var error: AIError
        var retry: RetryPolicy.Failure
        var retryAfter: Duration?
        var status: Int?
    }

    /// POSTs `body` to `endpoint` with retries inside the call's deadline; returns the first 2xx answer.
    /// The whole call is timed, by outcome.
    func send(_ endpoint: OpenAIEndpoint, body: [UInt8], contentType: String) async throws(AIError) -> CurlResponse {
        let start = ContinuousClock.now
        do {
            let response = try await self.sendWithRetries(endpoint, body: body, contentType: contentType)
            self.metrics.callFinished(endpoint, outcome: "ok", duration: start.duration(to: .now))
            return response
        } catch {
            self.metrics.callFinished(endpoint, outcome: error.shortDescription, duration: start.duration(to: .now))
            throw error
        }
    }

    private func sendWithRetries(_ endpoint: OpenAIEndpoint, body: [UInt8], contentType: String) async throws(AIError) -> CurlResponse {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: self.configuration.deadlines[endpoint.kind])
        let headers = [
            CurlHeader("Authorization", self.configuration.apiKey.authorizationValue),
            CurlHeader("Content-Type", contentType),
            CurlHeader("Accept", endpoint.accept),
        ]
        let url = "\(self.configuration.baseURL)/\(endpoint.path)"
        var attempt = 0
        while true {
            attempt += 1
            guard !Task.isCancelled else { throw AIError.cancelled }
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else {
                let error = AIError(.timeout, "The provider did not answer in time.")
                self.logFailure(endpoint, status: nil, attempt: attempt, error: error)
                throw error
            }
            let request = CurlRequest(
                url: url,
                method: "POST",
                headers: headers,
                body: body,
                connectTimeout: min(self.configuration.connectTimeout, remaining),
                timeout: remaining,
                maxResponseBytes: endpoint.maxResponseBytes
            )
            let failure: AttemptFailure
            do {
                let response = try await self.http.execute(request)
                if (200..<300).contains(response.status) {
                    return response
                }
                failure = self.failure(for: response)
            } catch let error as CurlError {
                if error == .cancelled || Task.isCancelled {
                    self.logger.debug("OpenAI call cancelled", metadata: ["openai.endpoint": "\(endpoint.path)"])
                    throw AIError.cancelled
                }
                failure = Self.failure(for: error)
            } catch {
                if Task.isCancelled { throw AIError.cancelled }
                failure = AttemptFailure(error: AIError(.unavailable, "The provider could not be reached."), retry: .permanent)
            }
            self.logFailure(endpoint, status: failure.status, attempt: attempt, error: failure.error)
            self.metrics.attemptFailed(endpoint, status: failure.status)

            let decision = self.retryPolicy.decide(
                afterAttempt: attempt,
                failure: failure.retry,
                retryAfter: failure.retryAfter,
                remaining: clock.now.duration(to: deadline),
                jitter: self.jitter
            )
            switch decision {
            case .retry(let wait):
                self.metrics.retried(endpoint)
                do {
                    try await Task.sleep(for: wait)
                } catch {
                    throw AIError.cancelled
                }
            case .stop:
                throw failure.error
            }
        }
    }

    /// A non-2xx answer.
    private func failure(for response: CurlResponse) -> AttemptFailure {
        let retryAfter = RetryAfter.parse(
            retryAfterMilliseconds: response.header("retry-after-ms"),
            retryAfter: response.header("Retry-After"),
            now: Date().timeIntervalSince1970
        )
        let error = OpenAIErrorMapping.error(
            status: response.status,
            body: response.body,
            retryAfter: retryAfter,
            defaultRetryAfter: self.configuration.defaultRateLimitRetryAfter
        )
        let retry: RetryPolicy.Failure =
            OpenAIErrorMapping.isQuotaExceeded(status: response.status, body: response.body) ? .permanent : .status(response.status)
        return AttemptFailure(error: error, retry: retry, retryAfter: retryAfter, status: response.status)
    }

    /// A transfer that failed without an answer.
    private static func failure(for error: CurlError) -> AttemptFailure {
        switch error {
        case .timeout:
            AttemptFailure(error: AIError(.timeout, "The provider did not answer in time."), retry: .permanent)
        case _ where error.isConnectionError:
            AttemptFailure(error: AIError(.unavailable, "The provider could not be reached."), retry: .connection)
        case .responseTooLarge, .invalidResponse:
            AttemptFailure(error: AIError(.invalidResponse, "The provider's answer could not be read."), retry: .permanent)
        default:
            AttemptFailure(error: AIError(.unavailable, "The provider could not be reached."), retry: .permanent)
        }
    }

    /// A `warning` with the endpoint, status, attempt and error kind, and nothing else.
    func logFailure(_ endpoint: OpenAIEndpoint, status: Int?, attempt: Int?, error: AIError) {
        self.logger.warning(
            "OpenAI call failed",
            metadata: [
                "openai.endpoint": "\(endpoint.path)",
                "openai.status": "\(status.map(String.init) ?? "none")",
                "openai.attempt": "\(attempt.map(String.init) ?? "-")",
                "openai.error": "\(error.shortDescription)",
            ]
        )
    }
}
