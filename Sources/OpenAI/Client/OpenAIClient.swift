public import CoreMetrics
public import CurlHTTP
public import Logging

/// The OpenAI provider: typed requests to the OpenAI HTTP API over ``CurlHTTP/CurlClient``, with bounded
/// retries inside one deadline per call, and every failure mapped to an `AIError`.
///
/// - Requests: `Authorization: Bearer <key>`, `Content-Type`, `Accept`; JSON bodies, or multipart for
///   `images/edits`. The end-user id (a hash of the uid) goes in `safety_identifier` for chat and in
///   `user` for images (the only end-user field the API description has there); speech and moderation
///   have none.
/// - Retries: 429, 500, 502, 503, 504 and connection failures, at most ``OpenAIConfiguration/maxAttempts``
///   attempts, exponential backoff with full jitter, at least `Retry-After`, never past the deadline.
/// - Errors: a content-policy refusal → `contentPolicy`; 429 after the retries → `rateLimited` (with
///   `retryAfter`); the deadline → `timeout`; other statuses (bad key included) → `upstream`; connection
///   failures after the retries → `unavailable`; an unreadable answer → `invalidResponse`.
/// - Cancellation: cancelling the calling task aborts the transfer (or the wait between attempts) at once
///   and throws ``AIError/cancelled`` (kind `unavailable`); nothing is retried after it.
/// - Logs: each failed attempt at `warning` with the endpoint, status, attempt and error kind; never the
///   key, a prompt, a body or a header.
///
/// The `CurlClient` must be running (a `Service` in the application's `ServiceGroup`).
public final class OpenAIClient: AIProvider {
    /// The settings this client was made with.
    public let configuration: OpenAIConfiguration
    let http: CurlClient
    let logger: Logger
    let retryPolicy: RetryPolicy
    let jitter: RetryPolicy.Jitter
    let metrics: OpenAIMetrics

    /// A client sending through `http`; nothing starts here.
    /// - Parameter metricsFactory: where call latency, retries and errors are counted (see `OpenAIMetrics`).
    public convenience init(
        configuration: OpenAIConfiguration, http: CurlClient, logger: Logger, metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.init(configuration: configuration, http: http, logger: logger, jitter: .random, metricsFactory: metricsFactory)
    }

    /// A client with a chosen jitter source (tests).
    init(
        configuration: OpenAIConfiguration, http: CurlClient, logger: Logger, jitter: RetryPolicy.Jitter,
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.configuration = configuration
        self.http = http
        self.logger = logger
        self.jitter = jitter
        self.metrics = OpenAIMetrics(factory: metricsFactory)
        self.retryPolicy = RetryPolicy(
            maxAttempts: configuration.maxAttempts,
            backoffBase: configuration.backoffBase,
            backoffCap: configuration.backoffCap
        )
    }

    public func structuredChat(_ request: StructuredChatRequest) async throws(AIError) -> StructuredChatResult {
        let placeholder = RawJSONPlaceholder.make()
        let body: [UInt8]
        do {
            body = try JSONBody.encode(ChatCompletionBody(request, schema: placeholder), splicing: request.schemaJSON, at: placeholder)
        } catch {
            throw self.unbuildable(.chatCompletions)
        }
        let response = try await self.send(.chatCompletions, body: body, contentType: "application/json")
        return try self.decoded(.chatCompletions) { () throws(AIError) in try ChatCompletionDecoding.result(response.body) }
    }

    public func speech(_ request: SpeechRequest) async throws(AIError) -> [UInt8] {
        let body: [UInt8]
        do {
            body = try JSONBody.encode(SpeechBody(request))
        } catch {
            throw self.unbuildable(.speech)
        }
        let response = try await self.send(.speech, body: body, contentType: "application/json")
        return try self.decoded(.speech) { () throws(AIError) in
            let contentType = response.header("Content-Type")?.lowercased() ?? ""
            guard !contentType.contains("json"), !contentType.hasPrefix("text/"), MediaSignature.isMP3(response.body) else {
                throw AIError(.invalidResponse, "The provider's audio could not be read.")
            }
            return response.body
        }
    }

    public func generateImage(_ request: ImageRequest) async throws(AIError) -> ImageResult {
        let body: [UInt8]
        do {
            body = try JSONBody.encode(ImageGenerationBody(request))
        } catch {
            throw self.unbuildable(.imageGenerations)
        }
        let response = try await self.send(.imageGenerations, body: body, contentType: "application/json")
        return try self.decoded(.imageGenerations) { () throws(AIError) in try ImageDecoding.result(response.body) }
    }

    public func editImage(_ request: ImageEditRequest) async throws(AIError) -> ImageResult {
        let form = ImageEditForm.make(request)
        let response = try await self.send(.imageEdits, body: form.body, contentType: form.contentType)
        return try self.decoded(.imageEdits) { () throws(AIError) in try ImageDecoding.result(response.body) }
    }

    public func moderate(_ request: ModerationRequest) async throws(AIError) -> ModerationResult {
        let body: [UInt8]
        do {
            body = try JSONBody.encode(ModerationBody(request))
        } catch {
            throw self.unbuildable(.moderations)
        }
        let response = try await self.send(.moderations, body: body, contentType: "application/json")
        return try self.decoded(.moderations) { () throws(AIError) in
            let decoded = try ResponseDecoding.decode(ModerationResponse.self, from: response.body)
            guard let first = decoded.results.first else {
                throw AIError(.invalidResponse, "The provider's answer could not be read.")
            }
            let categories = first.categories.compactMap { $0.value == true ? $0.key : nil }.sorted()
            return ModerationResult(flagged: first.flagged, categories: categories)
        }
    }

    /// Runs `decode`, logging its failure (a 2xx answer that could not be read, or a refusal).
    private func decoded<T>(_ endpoint: OpenAIEndpoint, _ decode: () throws(AIError) -> T) throws(AIError) -> T {
        do {
            return try decode()
        } catch {
            self.logFailure(endpoint, status: 200, attempt: nil, error: error)
            throw error
        }
    }

    /// The request could not be encoded (e.g. a schema that is not a JSON object): a caller's bug, reported
    /// as `upstream` without calling anything.
    private func unbuildable(_ endpoint: OpenAIEndpoint) -> AIError {
        let error = AIError(.upstream, "The request to the provider could not be built.")
        self.logFailure(endpoint, status: nil, attempt: nil, error: error)
        return error
    }
}
